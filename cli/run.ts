import { z } from 'zod';
import packageJson from '../package.json' with { type: 'json' };
import { isValidationError, PodliftError } from '../shared/core/model/errors';
import { type CliIO, parseCommandArgs, readInput, UsageError } from './command-support';
import { DIFF_HELP, diffCommand } from './diff-command';
import type { InstallCommandTools } from './install';
import { INSTALL_HELP } from './install-help';
import { KOPS_HELP, type KopsCommandTools, kopsCommand } from './kops';
import { loadKubeconfig } from './kubeconfig';
import { PLAN_HELP, planCommand } from './plan-command';
import { SAVINGS_HELP, savingsCommand } from './savings-command';

/** Exit codes: success, any failure, invalid input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_INVALID = 2;

const VERSION = z.object({ version: z.string() }).parse(packageJson).version;

const GLOBAL_HELP = `podlift: right-sized, cheapest-fit Kubernetes nodes on AWS (Karpenter's job, serverless)

Usage:
  podlift <command> [options]

Commands:
  plan     Plan the nodes podlift would launch for the pending pods of a YAML file or a cluster
  savings  What podlift would save on a cluster: today's nodes, podlift's, a proven lower bound
  diff     What a changed NodePool or EC2NodeClass would drift and replace, and its rollout
           played in the simulator
  kops     Print the EC2NodeClass and NodePool kOps generates for manager: Karpenter InstanceGroups
  install  Install podlift's in-cluster parts with your kubeconfig (kOps; EKS: cdk deploy does it)

Options:
  -h, --help     Show help; podlift <command> --help shows a command's help
  -v, --version  Print podlift's version
`;

const COMMANDS: Readonly<
  Record<string, { help: string; run: (args: string[], io: CliIO) => Promise<void> }>
> = {
  plan: { help: PLAN_HELP, run: planCommand },
  savings: { help: SAVINGS_HELP, run: savingsCommand },
  diff: { help: DIFF_HELP, run: diffCommand },
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
  install: {
    help: INSTALL_HELP,
    // Loaded on use: the Kubernetes client and the SSM client would slow every other command's start.
    run: async (args, io) => {
      const [{ installCommand }, { processInstallTools }] = await Promise.all([
        import('./install'),
        import('./install-tools'),
      ]);
      return installCommand(args, {
        ...processInstallTools(),
        kubeConfig: async (choice) => (await loadKubeconfig(choice, io)).config,
        parseArgs: (a, options) =>
          parseCommandArgs('install', a, options) as ReturnType<InstallCommandTools['parseArgs']>,
        usageError: (message) => new UsageError(message, 'install'),
        stdout: io.stdout,
      });
    },
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
