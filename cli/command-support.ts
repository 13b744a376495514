import { parseArgs } from 'node:util';
import { isUnknownRegionError, loadBundledCatalog } from '../shared/core/catalog/bundled';
import type { Catalog } from '../shared/core/catalog/instance-type';
import { isValidationError, PodliftError } from '../shared/core/model/errors';
import type { ClusterSourceChoice, ClusterSourceIO } from './cluster-source';
import type { RolloutPlayer } from './diff-rollout';
import type { SpotPriceOverrides } from './spot-prices';

/** What every podlift command uses: its IO, usage errors, flags, input files, the catalog. */

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
  /** Writes a UTF-8 file (`savings --html`); absent where nothing may be written. */
  readonly writeFile?: (path: string, text: string) => Promise<void>;
  /** The wall clock, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /**
   * Plays `podlift diff`'s rollout in the simulator. Given by the process entry that may import
   * the simulator (sim/cli/podlift.ts); product code never does (test/architecture.test.ts).
   */
  readonly playRollout?: RolloutPlayer;
}

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

/** The bundled catalog; a region without prices is a usage error, a bad spot price an input error. */
export function loadCatalog(
  command: string,
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
        command,
      );
    }
    if (isValidationError(e) && spotPricesFile !== undefined) throw e.at({ source: spotPricesFile });
    throw e;
  }
}

/** Instance types in --spot-prices podlift does not know: likely typos. */
export function spotPriceWarnings(
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

/** The options a command accepts, as node:util parseArgs takes them. */
export type OptionSpec = Readonly<
  Record<string, { type: 'string' | 'boolean'; short?: string; default?: string }>
>;

/** parseArgs with its errors turned into {@link UsageError}s naming the option. */
export function parseCommandArgs(
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

/** Reads an input file; errors name it and say why in a few words. */
export async function readInput(io: CliIO, path: string): Promise<string> {
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
