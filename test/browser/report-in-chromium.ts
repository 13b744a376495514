/**
 * `npm run test:browser`: plays the built-in demo in the simulator (what `npm start` plays),
 * writes its HTML report (`--report`), opens it in headless Debian Chromium driven by
 * playwright-core, and fails on any console error, page error, failed or outgoing network
 * request, or a chart with nothing drawn. Not part of `npm test` (it needs Chromium).
 *
 *   npm run test:browser [-- --out report.html] [-- --screenshot report.png]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { runSimulator } from '../../sim/cli/run';

const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps trying hosts this offline machine refuses.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const CHARTS = ['nodes', 'pending', 'cost', 'utilisation', 'decisions'];

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, screenshot: { type: 'string' } },
    strict: true,
  });
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(
      `test:browser: ${CHROMIUM} not found. Install Debian's Chromium first:\n` +
        '  sudo apt-get update && sudo apt-get install -y chromium\n',
    );
    return 2;
  }
  const work = mkdtempSync(join(tmpdir(), 'podlift-report-browser-'));
  try {
    const file = resolve(values.out ?? join(work, 'report.html'));
    const simulated = await runSimulator(['--quiet', '--report', file], {
      stdout: () => {},
      stderr: (text) => process.stderr.write(text),
      writeFile: (path, text) => writeFile(path, text, 'utf8'),
      tty: false,
      now: () => Date.now(),
    });
    if (simulated !== 0) {
      process.stderr.write(
        `test:browser: the demo simulation failed (exit ${simulated}); no report to check\n`,
      );
      return 1;
    }
    const problems: string[] = [];
    // A persistent context is how playwright takes a user-data-dir: a fresh, empty one.
    const context = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1000, height: 900 },
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) =>
        problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`),
      );
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) problems.push(`network request: ${request.url()}`);
      });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      for (const id of CHARTS) {
        // Runs in the page (the project's types have no DOM, hence a string).
        const drawn = (await page.evaluate(`(() => {
          const shapes = document.querySelectorAll(
            '[data-chart="${id}"] svg path.line, [data-chart="${id}"] svg path.area, [data-chart="${id}"] svg rect.mark');
          let visible = 0;
          for (const shape of shapes) {
            const box = shape.getBoundingClientRect();
            if (box.width > 0 && box.height > 0) visible++;
          }
          return { shapes: shapes.length, visible };
        })()`)) as { shapes: number; visible: number };
        if (drawn.visible === 0)
          problems.push(`chart ${id}: nothing drawn (${drawn.shapes} shapes, none with an area on the page)`);
        else process.stdout.write(`chart ${id}: ${drawn.visible} of ${drawn.shapes} shapes drawn\n`);
      }
      if (values.screenshot) {
        await page.screenshot({ path: resolve(values.screenshot), fullPage: true });
        process.stdout.write(`screenshot: ${resolve(values.screenshot)}\n`);
      }
    } finally {
      await context.close();
    }
    if (problems.length > 0) {
      process.stderr.write(`test:browser: FAILED\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
      return 1;
    }
    process.stdout.write(
      `test:browser: the report opened in Chromium with no errors and every chart drawn${values.out ? ` (${file})` : ''}\n`,
    );
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`test:browser: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
