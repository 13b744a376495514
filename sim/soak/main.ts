import { writeFileSync } from 'node:fs';
import { formatBoundTable } from './bound';
import { formatCostReport } from './cost-report';
import { runSoak } from './soak';

/**
 * `npm run soak [-- --seed <n>] [--steps <n>] [--verbose] [--trace <file>] [--json]`: seeded random steps
 * with injected faults against the whole loop (not part of npm test). Prints what broke, the
 * digest of the run's trace (the same seed and steps give the same digest) and a one-line repro;
 * `--trace` writes the trace itself, one entry a line, to compare two runs with diff. Exits 1
 * when an invariant was violated, a pod was lost or an orphan instance survived.
 * `--feature-gates` sets the functions' FEATURE_GATES (e.g. `NodeRepair=true`).
 */
// As `npm start` (sim/cli/main.ts): the SDK's Node 22 notice says nothing about clients talking
// to local fakes, so it is not printed over the soak's report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const USAGE =
  'usage: npm run soak -- [--seed <n>] [--steps <n>] [--verbose] [--trace <file>] [--json] [--feature-gates <gates>]\n';
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
if (args.includes('--help')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const seed = Number(flag('--seed') ?? Date.now() % 100_000);
const steps = Number(flag('--steps') ?? 100);
if (!Number.isInteger(seed) || !Number.isInteger(steps) || steps < 1) {
  process.stderr.write(
    `--seed and --steps take whole numbers (got ${JSON.stringify(flag('--seed'))}, ${JSON.stringify(flag('--steps'))})\n${USAGE}`,
  );
  process.exit(2);
}
const traceFile = flag('--trace');
const featureGates = flag('--feature-gates');
const started = Date.now();
const result = await runSoak({
  seed,
  steps,
  keepTrace: traceFile !== undefined,
  ...(featureGates !== undefined ? { featureGates } : {}),
  ...(args.includes('--verbose') ? { onLine: (line: string) => process.stdout.write(`${line}\n`) } : {}),
});
const wall = ((Date.now() - started) / 1000).toFixed(1);
if (traceFile !== undefined) writeFileSync(traceFile, `${(result.trace ?? []).join('\n')}\n`);
const failed = result.violations.length + result.podsLost + result.orphans + result.notFinalized.length;
// One JSON line of the figures (for npm run bench), instead of the report.
if (args.includes('--json')) {
  process.stdout.write(
    `${JSON.stringify({
      seed,
      steps,
      violations: result.violations.length,
      podsLost: result.podsLost,
      orphans: result.orphans,
      notFinalized: result.notFinalized.length,
      cost: result.cost,
      digest: result.digest,
    })}\n`,
  );
  process.exit(failed === 0 ? 0 : 1);
}
process.stdout.write(
  [
    `soak seed ${seed}${featureGates !== undefined ? ` (FEATURE_GATES ${featureGates})` : ''}: ${steps} steps, ${(result.simulatedMs / 60_000).toFixed(0)} simulated minutes in ${wall}s wall`,
    `invariant violations: ${result.violations.length}${result.violations.map((v) => `\n  - ${v}`).join('')}`,
    `pods lost: ${result.podsLost}`,
    `orphan instances past the TTL: ${result.orphans}`,
    `NodeClaims deleted but not finalized within 10m: ${result.notFinalized.length}${result.notFinalized.length > 0 ? ` (${result.notFinalized.join(', ')})` : ''}`,
    `function invocations that failed (and were retried): ${result.invocationsFailed}`,
    formatBoundTable(result.costOverTime),
    formatCostReport(result.cost),
    `trace digest: ${result.digest} (${result.traceEntries} entries)`,
    `repro: npm run soak -- --seed ${seed} --steps ${steps}${featureGates !== undefined ? ` --feature-gates ${featureGates}` : ''}`,
    '',
  ].join('\n'),
);
process.exitCode = failed === 0 ? 0 : 1;
