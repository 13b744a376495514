import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let bundle: string;

/** Runs the bundle with only PATH in its environment (plus `env`); resolves with its exit. */
async function start(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bundle, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 10_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'podlift-watcher-bundle-'));
  bundle = join(dir, 'main.mjs');
  await run(process.execPath, [join(root, 'watcher/build.mjs'), '--outfile', bundle], { cwd: root });
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('watcher bundle', () => {
  it('is one ESM file that starts under plain node and exits 2 naming each missing variable', async () => {
    const text = await readFile(bundle, 'utf8');
    expect(
      text.startsWith(
        "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      ),
    ).toBe(true);
    const result = await start([]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/Dynamic require/);
    expect(result.stderr).toMatch(/^error: invalid watcher configuration: CLUSTER_NAME is missing/);
    for (const name of ['EVENT_BUS_NAME', 'AWS_REGION', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'])
      expect(result.stderr).toContain(`${name} is missing`);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names a bad value', async () => {
    const result = await start([], {
      CLUSTER_NAME: 'prod',
      EVENT_BUS_NAME: 'podlift-prod',
      AWS_REGION: 'us-east-1',
      KUBERNETES_SERVICE_HOST: '10.100.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      PORT: 'http',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: invalid watcher configuration: PORT must be a whole number of a TCP port from 1 to 65535 (got "http")\n',
    );
  });

  it('prints its environment with --help and exits 0', async () => {
    const result = await start(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('BATCH_IDLE_MS');
    expect(result.stdout).toContain('/readyz');
  });
});

describe('watcher Dockerfile', () => {
  it('runs the bundle alone on a slim Node image as a numeric non-root user', async () => {
    const dockerfile = await readFile(join(root, 'watcher/Dockerfile'), 'utf8');
    const instructions = dockerfile
      .split('\n')
      .filter((line) => line.trim() && !line.trim().startsWith('#'))
      .map((line) => line.trim());
    expect(instructions[0]).toMatch(/^FROM node:2[02]-[a-z]+-slim$/);
    expect(instructions.filter((line) => line.startsWith('COPY'))).toEqual([
      'COPY --chown=0:0 --chmod=0444 main.mjs /app/main.mjs',
    ]);
    const user = instructions.filter((line) => line.startsWith('USER'));
    expect(user).toHaveLength(1);
    expect(user[0]).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    expect(instructions).toContain('EXPOSE 8080');
    expect(instructions.at(-1)).toBe('ENTRYPOINT ["node", "/app/main.mjs"]');
    expect(instructions.some((line) => /^RUN\b/.test(line))).toBe(false);
  });
});
