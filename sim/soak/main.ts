import { writeFileSync } from 'node:fs';
import { GLOBAL_CONSOLIDATION_K, LAUNCH_PRICE_BAND } from '../../shared/core/manifests/nodepool-schema';
import { formatBoundTable } from './bound';
import { formatCostComparison, formatCostReport } from './cost-report';
import { runSoak, type SoakResult } from './soak';

/**
 * `npm run soak [-- --seed <n>] [--steps <n>] [--verbose] [--trace <file>] [--json]
 * [--feature-gates <gates>] [--compare] [--budget <nodes>] [--global-k <k>]
 * [--launch-band <percent>]`: seeded random steps with injected faults against the whole loop
 * (not part of npm test). Prints what broke, the digest of the run's trace (the same seed and
 * steps give the same digest) and a one-line repro;
 * `--trace` writes the trace itself, one entry a line, to compare two runs with diff. Exits 1
 * when an invariant was violated, a pod was lost or an orphan instance survived.
 * `--feature-gates` sets the functions' FEATURE_GATES; `--compare` plays the seed twice, with
 * Karpenter's consolidation (the default) and with `GlobalConsolidation=true`, and prints both
 * reports and their figures side by side (issue 23: the baseline measured in the same run).
 * `--budget` sets the NodePool's disruption budget (`nodes`, e.g. `30%`; default Karpenter's 10 %);
 * `--global-k` the NodePool's `podlift.dev/global-consolidation-k` (1–10; default Balanced's 2);
 * `--launch-band` its `podlift.dev/launch-price-band` (e.g. `25%`; default none, every option).
 */
// As `npm start` (sim/cli/main.ts): the SDK's Node 22 notice says nothing about clients talking
// to local fakes, so it is not printed over the soak's report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const USAGE =
  'usage: npm run soak -- [--seed <n>] [--steps <n>] [--verbose] [--trace <file>] [--json] [--feature-gates <gates>] [--compare] [--budget <nodes>] [--global-k <k>] [--launch-band <percent>]\n';
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
const globalK = flag('--global-k');
if (globalK !== undefined && !GLOBAL_CONSOLIDATION_K.test(globalK)) {
  process.stderr.write(
    `--global-k takes a whole number from 1 to 10 (got ${JSON.stringify(globalK)})\n${USAGE}`,
  );
  process.exit(2);
}
const launchBand = flag('--launch-band');
if (launchBand !== undefined && !LAUNCH_PRICE_BAND.test(launchBand)) {
  process.stderr.write(
    `--launch-band takes a whole percentage from 0% to 1000% (got ${JSON.stringify(launchBand)})\n${USAGE}`,
  );
  process.exit(2);
}
const traceFile = flag('--trace');
const compare = args.includes('--compare');
if (compare && (traceFile !== undefined || flag('--feature-gates') !== undefined)) {
  process.stderr.write(
    `--compare plays both strategies; it takes neither --trace nor --feature-gates\n${USAGE}`,
  );
  process.exit(2);
}
/** The strategies played: the default alone, the gates asked for, or both side by side. */
const runs: readonly (string | undefined)[] = compare
  ? [undefined, 'GlobalConsolidation=true']
  : [flag('--feature-gates')];
const results: { result: SoakResult; wall: string }[] = [];
for (const featureGates of runs) {
  const started = Date.now();
  const result = await runSoak({
    seed,
    steps,
    keepTrace: traceFile !== undefined,
    ...(featureGates !== undefined ? { featureGates } : {}),
    ...(flag('--budget') !== undefined ? { budget: flag('--budget') } : {}),
    ...(globalK !== undefined ? { globalConsolidationK: Number(globalK) } : {}),
    ...(launchBand !== undefined ? { launchPriceBand: launchBand } : {}),
    ...(args.includes('--verbose') ? { onLine: (line: string) => process.stdout.write(`${line}\n`) } : {}),
  });
  results.push({ result, wall: ((Date.now() - started) / 1000).toFixed(1) });
}
const failedOf = (r: SoakResult) => r.violations.length + r.podsLost + r.orphans + r.notFinalized.length;
const failed = results.reduce((n, { result }) => n + failedOf(result), 0);
const only = results[0].result;
if (traceFile !== undefined) writeFileSync(traceFile, `${(only.trace ?? []).join('\n')}\n`);
// One JSON line of the figures per run (for npm run bench), instead of the report.
if (args.includes('--json')) {
  for (const { result } of results)
    process.stdout.write(
      `${JSON.stringify({
        seed,
        steps,
        ...(result.featureGates !== undefined ? { featureGates: result.featureGates } : {}),
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
for (const { result, wall } of results)
  process.stdout.write(
    [
      `soak seed ${seed}${result.featureGates !== undefined ? ` (FEATURE_GATES ${result.featureGates})` : ''}: ${steps} steps, ${(result.simulatedMs / 60_000).toFixed(0)} simulated minutes in ${wall}s wall`,
      `invariant violations: ${result.violations.length}${result.violations.map((v) => `\n  - ${v}`).join('')}`,
      `pods lost: ${result.podsLost}`,
      `orphan instances past the TTL: ${result.orphans}`,
      `NodeClaims deleted but not finalized within 10m: ${result.notFinalized.length}${result.notFinalized.length > 0 ? ` (${result.notFinalized.join(', ')})` : ''}`,
      `function invocations that failed (and were retried): ${result.invocationsFailed}`,
      formatBoundTable(result.costOverTime),
      formatCostReport(result.cost),
      `trace digest: ${result.digest} (${result.traceEntries} entries)`,
      `repro: npm run soak -- --seed ${seed} --steps ${steps}${flag('--budget') !== undefined ? ` --budget ${flag('--budget')}` : ''}${globalK !== undefined ? ` --global-k ${globalK}` : ''}${launchBand !== undefined ? ` --launch-band ${launchBand}` : ''}${result.featureGates !== undefined ? ` --feature-gates ${result.featureGates}` : ''}`,
      '',
    ].join('\n'),
  );
if (compare)
  process.stdout.write(
    `${formatCostComparison(
      results.map(({ result }) => ({
        name: result.featureGates === undefined ? 'karpenter' : 'global',
        report: result.cost,
        digest: result.digest,
      })),
    )}\n`,
  );
process.exitCode = failed === 0 ? 0 : 1;
