import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RolloutInput, RolloutReport } from '../../cli/diff-rollout';
import { runAsProcess } from '../../cli/process';
import { PodliftError } from '../../shared/core/model/errors';

/**
 * The `podlift` command's process entry (bin/podlift.mjs, cli/build.mjs): the product CLI of
 * cli/ with the simulator wired in as `podlift diff`'s rollout player. It lives in sim/ because
 * only sim/ may reach both the product and the simulator (test/architecture.test.ts); cli/ knows
 * the player only as the RolloutPlayer port of cli/diff-rollout.ts. The player runs in a process
 * of its own (sim/rollout/main.ts, through tsx), so the CLI's one-file bundle stays free of the
 * simulator and of what it loads (the AWS SDK, the CDK stack its IAM policies come from), and
 * the other commands start as fast as before. Both this file and the bundle (dist/cli/) sit two
 * folders below the package root, so the player's path resolves from either.
 */
const PLAYER = fileURLToPath(new URL('../../sim/rollout/main.ts', import.meta.url));

async function playRollout(input: RolloutInput): Promise<RolloutReport> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), PLAYER], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.end(JSON.stringify(input));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0)
    throw new PodliftError(
      `playing the rollout in the simulator (${PLAYER}) failed with exit code ${code}: ${Buffer.concat(err).toString().trim()}`,
    );
  return JSON.parse(Buffer.concat(out).toString()) as RolloutReport;
}

await runAsProcess({ playRollout });
