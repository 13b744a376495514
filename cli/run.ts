import { parseArgs } from 'node:util';
import { z } from 'zod';
import packageJson from '../package.json' with { type: 'json' };
import { isUnknownRegionError, loadBundledCatalog } from '../shared/core/catalog/bundled';
import type { Catalog } from '../shared/core/catalog/instance-type';
import { isValidationError, PodliftError } from '../shared/core/model/errors';
import { planCapacity } from '../shared/core/scheduling/plan-capacity';
import { type ClusterSourceChoice, type ClusterSourceIO, loadCluster } from './cluster-source';
import { type DiffCommandTools, diffCommand } from './diff';
import type { RolloutPlayer } from './diff-rollout';
import { KOPS_HELP, type KopsCommandTools, kopsCommand } from './kops';
import { readPlanInput } from './plan-input';
import { formatPlanJson, planToJson } from './plan-json';
import { planNotes } from './plan-notes';
import { formatPlanTable } from './plan-table';
import { parseSpotPrices, type SpotPriceOverrides } from './spot-prices';

/** The CLI's only contact with the world, injected so tests run it in-process. */
export interface CliIO {
  /** Reads all of standard input. */
  readonly stdin: () => Promise<string>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Reads a UTF-8 file. */
  readonly readFile: (path: string) => Promise<string>;
  /** The `KUBECONFIG` variable, for commands that read a live cluster. */
  readonly kubeconfigEnv?: string;
  /** The user's home directory (`~/.kube/config`). */
  readonly homeDir?: string;
  /**
   * Plays `podlift diff`'s rollout in the simulator. Given by the process entry that may import
   * the simulator (sim/cli/podlift.ts); product code never does (test/architecture.test.ts).
   */
  readonly playRollout?: RolloutPlayer;
}

/** Exit codes: success, any failure, invalid input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_INVALID = 2;

/** Bad command line: unknown command or flag, missing or extra argument, bad flag value. Exits 2. */
export class UsageError extends PodliftError {
  constructor(
    message: string,
    /** The command whose help to point at. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

const VERSION = z.object({ version: z.string() }).parse(packageJson).version;

const GLOBAL_HELP = `podlift: right-sized, cheapest-fit Kubernetes nodes on AWS (Karpenter's job, serverless)

Usage:
  podlift <command> [options]

Commands:
  plan    Plan, offline, the nodes podlift would launch for the pending pods of a YAML file
  diff    Which NodeClaims a changed NodePool or EC2NodeClass drifts, what replaces them, and
          its rollout played in the simulator
  kops    Print the EC2NodeClass and NodePool kOps generates for manager: Karpenter InstanceGroups

Options:
  -h, --help     Show help; podlift <command> --help shows a command's help
  -v, --version  Print podlift's version
`;

const PLAN_HELP = `Usage: podlift plan [<file.yaml | ->] [options]

Plans the nodes podlift would launch for pending pods, from the bundled EC2 instance catalog
and prices. With no file it reads the live cluster of the current kubeconfig context, read-only
(NodePools, EC2NodeClasses, Nodes, Pods, DaemonSets). A file is a kubectl-style multi-document
YAML file ('-' reads standard input; 'kind: List' is flattened) with these kinds:

  NodePool, EC2NodeClass                  karpenter.sh/v1, karpenter.k8s.aws/v1
  Pod                                     pending, or bound to a Node by spec.nodeName
  Deployment, ReplicaSet, StatefulSet     spec.replicas pods (default 1), named <name>-<i>
  Job                                     spec.parallelism pods (default 1, at most completions)
  DaemonSet                               its pod runs on every eligible node
  Node                                    existing capacity: labels, allocatable, taints
  InstanceGroup, Cluster                  kops.k8s.io/v1alpha2: each manager: Karpenter
                                          InstanceGroup plans as the EC2NodeClass and
                                          NodePool kOps generates (see podlift kops)

Other kinds are skipped with a warning.

Options:
      --kubeconfig <file>    Live cluster: this kubeconfig (default: KUBECONFIG, ~/.kube/config)
      --context <name>       Live cluster: this context (default: the current context)
      --region <region>      AWS region of instance types and prices (default us-east-1)
  -o, --output <format>      table or json (default table)
      --spot-prices <file>   JSON of spot prices in USD/hour, replacing the estimates:
                             {"m5.large": 0.035} or {"m5.large": {"us-east-1a": 0.035}}
  -h, --help                 Show this help

Spot prices are estimated as on-demand x (1 - Spot Instance Advisor savings); pass
--spot-prices for today's prices.

Exit codes: 0 planned (even with unschedulable pods), 2 invalid input or usage, 1 other failure.

Examples:
  podlift plan examples/inflate.yaml
  podlift plan --context prod
  kubectl get nodepools,ec2nodeclasses,nodes,daemonsets,pods -A -o yaml | podlift plan - -o json
`;

const DIFF_HELP = `Usage: podlift diff <changed.yaml> [<cluster-dump.yaml | ->] [options]

Says what applying a changed NodePool or EC2NodeClass would do to a cluster, read-only, before
you apply it: which NodeClaims would drift and why (the disruption loop's own drift rules:
the NodePool and EC2NodeClass hashes, the NodePool's requirements, the AMI), what the planner
would put in their place and the $/hour before and after; then it plays the rollout in the
simulator, from the cluster's current state, with podlift's own handlers under the NodePools'
disruption budgets, the PodDisruptionBudgets and do-not-disrupt pods: how many nodes at a time,
how long it takes, which pods move, what holds it back.

<changed.yaml> holds the edited NodePool and EC2NodeClass objects (YAML, several documents or a
List). With a dump file ('-' reads standard input; kubectl get nodepools,ec2nodeclasses,
nodeclaims,nodes,pods,daemonsets,poddisruptionbudgets -A -o yaml) it reads that; with none, the
live cluster of the current kubeconfig context.

Options:
      --kubeconfig <file>     Live cluster: this kubeconfig (default: KUBECONFIG, ~/.kube/config)
      --context <name>        Live cluster: this context (default: the current context)
      --region <region>       AWS region of instance types and prices (default us-east-1)
  -o, --output <format>       table or json (default table)
      --spot-prices <file>    JSON of spot prices in USD/hour, replacing the estimates
      --no-rollout            Do not play the rollout in the simulator
      --max-duration <dur>    Stop the simulated rollout after this long (default 6h)
  -h, --help                  Show this help

EC2 is not asked: drift by subnet and security group is not reported, and a changed
EC2NodeClass whose selector terms select other AMIs says so as unknown.

Exit codes: 0 reported (whatever drifts), 2 invalid input or usage, 1 other failure.

Examples:
  podlift diff examples/diff/web-nodepool.yaml examples/diff/cluster.yaml
  podlift diff nodepool.yaml --context prod -o json
`;

const COMMANDS: Readonly<
  Record<string, { help: string; run: (args: string[], io: CliIO) => Promise<void> }>
> = {
  plan: { help: PLAN_HELP, run: planCommand },
  diff: {
    help: DIFF_HELP,
    run: (args, io) =>
      diffCommand(args, {
        parseArgs: (a, options) =>
          parseCommandArgs('diff', a, { ...options, ...CLUSTER_OPTIONS }) as ReturnType<
            DiffCommandTools['parseArgs']
          >,
        usageError: (message) => new UsageError(message, 'diff'),
        readInput: (path) => readInput(io, path),
        clusterChoice: (values, positionals) =>
          clusterChoice('diff', values as Parameters<typeof clusterChoice>[1], positionals),
        loadCluster: async (choice) => (await loadCluster(choice, clusterIO(io))).snapshot,
        loadCatalog: async (region, spotPricesFile) =>
          loadCatalog(
            region,
            spotPricesFile === undefined
              ? undefined
              : parseSpotPrices(await readInput(io, spotPricesFile), spotPricesFile),
            spotPricesFile,
          ),
        ...(io.playRollout ? { playRollout: io.playRollout } : {}),
        stdout: io.stdout,
        stderr: io.stderr,
      }),
  },
  kops: {
    help: KOPS_HELP,
    run: (args, io) =>
      kopsCommand(args, {
        parseArgs: (a, options) =>
          parseCommandArgs('kops', a, options) as ReturnType<KopsCommandTools['parseArgs']>,
        readInput: (path) => readInput(io, path),
        readStdin: io.stdin,
        usageError: (message) => new UsageError(message, 'kops'),
        stdout: io.stdout,
        stderr: io.stderr,
      }),
  },
};

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code: 0 on success,
 * 2 for invalid input or usage, 1 for anything else. Errors are printed to stderr as one line
 * naming the file, document, object, field and value.
 */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  let command: string | undefined;
  try {
    if (first === undefined) {
      io.stderr(GLOBAL_HELP);
      return EXIT_INVALID;
    }
    if (first === '-h' || first === '--help') {
      io.stdout(GLOBAL_HELP);
      return EXIT_OK;
    }
    if (first === '-v' || first === '--version') {
      io.stdout(`podlift ${VERSION}\n`);
      return EXIT_OK;
    }
    if (first === 'help') {
      const topic = rest[0];
      if (topic === undefined) io.stdout(GLOBAL_HELP);
      else if (topic in COMMANDS) io.stdout(COMMANDS[topic].help);
      else throw new UsageError(`unknown command '${topic}'`);
      return EXIT_OK;
    }
    if (first.startsWith('-')) throw new UsageError(`unknown option '${first}'`);
    if (!(first in COMMANDS)) throw new UsageError(`unknown command '${first}'`);
    command = first;
    if (rest.includes('-h') || rest.includes('--help')) {
      io.stdout(COMMANDS[command].help);
      return EXIT_OK;
    }
    await COMMANDS[command].run(rest, io);
    return EXIT_OK;
  } catch (e) {
    return report(e, command, io);
  }
}

function report(e: unknown, command: string | undefined, io: CliIO): number {
  if (e instanceof UsageError) {
    const help = command ? `podlift ${command} --help` : 'podlift --help';
    io.stderr(`error: ${command ? `${command}: ` : ''}${e.message}\nRun '${help}' for usage.\n`);
    return EXIT_INVALID;
  }
  if (isValidationError(e)) {
    io.stderr(`error: ${e.message}\n`);
    return EXIT_INVALID;
  }
  if (e instanceof PodliftError) {
    io.stderr(`error: ${e.message}\n`);
    return EXIT_FAILURE;
  }
  // Anything else is a bug: keep the stack for the report.
  const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
  io.stderr(`error: unexpected failure (a bug in podlift; please report it): ${detail}\n`);
  return EXIT_FAILURE;
}

async function planCommand(args: string[], io: CliIO): Promise<void> {
  const { values, positionals } = parseCommandArgs('plan', args, {
    region: { type: 'string', default: 'us-east-1' },
    output: { type: 'string', short: 'o', default: 'table' },
    'spot-prices': { type: 'string' },
    ...CLUSTER_OPTIONS,
  });
  const { region, output } = values as { region: string; output: string };
  const spotPricesFile = values['spot-prices'] as string | undefined;
  if (output !== 'table' && output !== 'json') {
    throw new UsageError(`--output must be table or json (got '${output}')`, 'plan');
  }
  const choice = clusterChoice('plan', values, positionals);
  const spotPrices =
    spotPricesFile === undefined
      ? undefined
      : parseSpotPrices(await readInput(io, spotPricesFile), spotPricesFile);
  const catalog = loadCatalog(region, spotPrices, spotPricesFile);
  const { file } = choice;
  const input =
    file === undefined
      ? (await loadCluster(choice, clusterIO(io))).snapshot
      : readPlanInput(
          file === '-' ? await io.stdin() : await readInput(io, file),
          file === '-' ? '<stdin>' : file,
        );
  const warnings = [...input.warnings, ...spotPriceWarnings(spotPrices, spotPricesFile, catalog)];
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);

  const result = planCapacity(input, catalog);
  const plan = planToJson(region, result);
  const notes = planNotes(plan);
  if (output === 'json') {
    // stdout carries only the documented JSON; the notes go with the warnings.
    io.stdout(formatPlanJson(region, result));
    for (const note of notes) io.stderr(`note: ${note}\n`);
  } else {
    io.stdout(formatPlanTable(plan, notes));
  }
}

/** The bundled catalog; a region without prices is a usage error, a bad spot price an input error. */
function loadCatalog(
  region: string,
  spotPrices: SpotPriceOverrides | undefined,
  spotPricesFile: string | undefined,
): Catalog {
  try {
    return loadBundledCatalog(region, spotPrices ? { spotPrices } : undefined);
  } catch (e) {
    if (isUnknownRegionError(e)) {
      throw new UsageError(
        `--region ${region}: no bundled prices for this region (known: ${e.knownRegions.join(', ')})`,
        'plan',
      );
    }
    if (isValidationError(e) && spotPricesFile !== undefined) throw e.at({ source: spotPricesFile });
    throw e;
  }
}

/** Instance types in --spot-prices podlift does not know: likely typos. */
function spotPriceWarnings(
  spotPrices: SpotPriceOverrides | undefined,
  source: string | undefined,
  catalog: Catalog,
): string[] {
  if (!spotPrices) return [];
  const types = new Set(catalog.types.map((t) => t.name));
  const warnings: string[] = [];
  for (const type of Object.keys(spotPrices)) {
    if (!types.has(type)) {
      warnings.push(`${source}: ${type} is not an instance type podlift knows; its price is unused`);
    }
  }
  return warnings;
}

/** The options of every command that reads a cluster. */
export const CLUSTER_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

/**
 * The cluster a command reads: the one positional file (a dump, '-' for stdin), or with none
 * the live cluster of `--kubeconfig` / `--context`.
 */
export function clusterChoice(
  command: string,
  values: ReturnType<typeof parseArgs>['values'],
  positionals: readonly string[],
): ClusterSourceChoice {
  if (positionals.length > 1) {
    throw new UsageError(
      `expected one input file, got ${positionals.length}: ${positionals.join(' ')}`,
      command,
    );
  }
  const kubeconfig = values.kubeconfig as string | undefined;
  const context = values.context as string | undefined;
  const [file] = positionals;
  if (file !== undefined && (kubeconfig !== undefined || context !== undefined)) {
    throw new UsageError(
      `${file} is a dump file; --kubeconfig and --context choose a live cluster instead: pass one or the other`,
      command,
    );
  }
  return {
    ...(file !== undefined ? { file } : {}),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    ...(context !== undefined ? { context } : {}),
  };
}

/** What loading a cluster needs from the CLI's IO. */
export function clusterIO(io: CliIO): ClusterSourceIO {
  return {
    stdin: io.stdin,
    readDump: (path) => readInput(io, path),
    readFile: io.readFile,
    ...(io.kubeconfigEnv !== undefined ? { kubeconfigEnv: io.kubeconfigEnv } : {}),
    ...(io.homeDir !== undefined ? { homeDir: io.homeDir } : {}),
  };
}

type OptionSpec = Readonly<Record<string, { type: 'string' | 'boolean'; short?: string; default?: string }>>;

function parseCommandArgs(
  command: string,
  args: string[],
  options: OptionSpec,
): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    // node:util reports unknown flags and missing values as TypeErrors with an ERR_PARSE_ARGS code.
    if (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS')) {
      // Node's unknown-option message goes on about '--'; the option's name is what helps.
      const option =
        e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(e.message)?.[1] : undefined;
      throw new UsageError(option ? `unknown option '${option}'` : e.message, command);
    }
    throw e;
  }
}

async function readInput(io: CliIO, path: string): Promise<string> {
  try {
    return await io.readFile(path);
  } catch (e) {
    const reason =
      e instanceof Error && 'code' in e && e.code === 'ENOENT'
        ? 'no such file'
        : e instanceof Error && 'code' in e && e.code === 'EISDIR'
          ? 'is a directory'
          : e instanceof Error
            ? e.message
            : String(e);
    throw new PodliftError(`reading ${path}: ${reason}`, { cause: e });
  }
}
