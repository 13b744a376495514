import { PodliftError } from '../shared/core/model/errors';
import { estimateSavings } from '../shared/core/savings/estimate-savings';
import { loadHighsSolver } from '../shared/runtime/highs-solver';
import { loadCluster } from './cluster-source';
import {
  CLUSTER_OPTIONS,
  type CliIO,
  clusterChoice,
  clusterIO,
  loadCatalog,
  parseCommandArgs,
  readInput,
  spotPriceWarnings,
  UsageError,
} from './command-support';
import { renderSavingsHtml } from './savings-html';
import { savingsToJson } from './savings-json';
import { formatSavingsTable } from './savings-table';
import { parseSpotPrices } from './spot-prices';

/** `podlift savings`'s help. */
export const SAVINGS_HELP = `Usage: podlift savings [<dump.yaml | ->] [options]

What podlift would save on a cluster. Reads the live cluster of the current kubeconfig context,
read-only, or a dump of one ('kubectl get nodepools,ec2nodeclasses,nodeclaims,nodes,pods,
daemonsets,poddisruptionbudgets -A -o yaml'; '-' reads standard input), and reports:

  today        the nodes running the pods and their $/hour (bundled on-demand prices; spot
               estimated, or --spot-prices)
  podlift      the nodes podlift would run the same pods on under the cluster's NodePools (or,
               with none, Karpenter's general-purpose NodePool) and their $/hour
  lower bound  a proven lower bound on any plan's cost for those pods (the configuration LP,
               solved with HiGHS): no scheduler can do better
  saving       per hour and per month (730 hours), and the most any plan could save
  constraints  the pods that hold the saving back: requests no small node holds, hostname
               anti-affinity, PodDisruptionBudgets allowing no disruption, do-not-disrupt

The pods compared are those running on nodes podlift can price (not DaemonSet or mirror pods);
pending pods are in neither cost. Nothing is written to the cluster.

Options:
      --kubeconfig <file>    Live cluster: this kubeconfig (default: KUBECONFIG, ~/.kube/config)
      --context <name>       Live cluster: this context (default: the current context)
      --region <region>      AWS region of instance types and prices (default us-east-1)
      --spot-prices <file>   JSON of spot prices in USD/hour, replacing the estimates:
                             {"m5.large": 0.035} or {"m5.large": {"us-east-1a": 0.035}}
      --json                 Print JSON instead of the table
      --html <file>          Also write a self-contained HTML report to <file>
  -h, --help                 Show this help

Exit codes: 0 estimated, 2 invalid input or usage, 1 other failure (cluster unreachable, refused).

Examples:
  podlift savings
  podlift savings --context prod --html savings.html
  podlift savings examples/clusters/shop.yaml --json
`;

/** How long the bound's column generation may run before it settles for the bound it has. */
const BOUND_TIME_CAP_MS = 20_000;

/** `podlift savings`: estimates the saving on a live cluster or a dump. */
export async function savingsCommand(args: string[], io: CliIO): Promise<void> {
  const { values, positionals } = parseCommandArgs('savings', args, {
    region: { type: 'string', default: 'us-east-1' },
    'spot-prices': { type: 'string' },
    json: { type: 'boolean' },
    html: { type: 'string' },
    ...CLUSTER_OPTIONS,
  });
  const region = values.region as string;
  const spotPricesFile = values['spot-prices'] as string | undefined;
  const htmlFile = values.html as string | undefined;
  if (htmlFile !== undefined && io.writeFile === undefined) {
    throw new UsageError('--html is not available here: no file can be written', 'savings');
  }
  const choice = clusterChoice('savings', values, positionals);
  const spotPrices =
    spotPricesFile === undefined
      ? undefined
      : parseSpotPrices(await readInput(io, spotPricesFile), spotPricesFile);
  const catalog = loadCatalog('savings', region, spotPrices, spotPricesFile);
  const { snapshot } = await loadCluster(choice, clusterIO(io));
  for (const w of [...snapshot.warnings, ...spotPriceWarnings(spotPrices, spotPricesFile, catalog)]) {
    io.stderr(`warning: ${w}\n`);
  }
  const solver = await loadHighsSolver();
  // The one clock read of the command: do-not-disrupt durations and the bound's time cap.
  const now = io.now?.() ?? Date.now();
  const started = performance.now();
  const estimate = estimateSavings(
    {
      nodes: snapshot.nodes,
      daemonSets: snapshot.daemonSets,
      nodePools: snapshot.nodePools,
      nodeClasses: snapshot.nodeClasses,
      podDisruptionBudgets: snapshot.podDisruptionBudgets,
      now,
    },
    catalog,
    solver,
    { shouldStop: () => performance.now() - started > BOUND_TIME_CAP_MS },
  );
  const json = savingsToJson(estimate, {
    source: snapshot.source,
    region,
    pendingPods: snapshot.pods.length,
  });
  if (htmlFile !== undefined && io.writeFile) {
    try {
      await io.writeFile(htmlFile, renderSavingsHtml(json));
    } catch (e) {
      throw new PodliftError(`writing ${htmlFile}: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
  }
  io.stdout(values.json ? `${JSON.stringify(json, null, 2)}\n` : formatSavingsTable(json));
}
