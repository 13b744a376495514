import { delimiter, dirname, join } from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { PodliftError } from '../shared/core/model/errors';

/**
 * Finding the cluster and credentials the way kubectl does (client-go
 * `clientcmd.ClientConfigLoadingRules.Load`): `--kubeconfig` alone when given; otherwise the
 * files of `KUBECONFIG` (missing ones skipped), merged with the first file to set a name or the
 * current context winning; otherwise `~/.kube/config`. `--context` overrides the current context.
 */

/** Which kubeconfig and context to use, as the command line says. */
export interface KubeconfigChoice {
  /** `--kubeconfig`: this file only. */
  readonly kubeconfig?: string;
  /** `--context`: this context instead of the current one. */
  readonly context?: string;
}

/** What loading a kubeconfig needs from the process. */
export interface KubeconfigEnvironment {
  /** Reads a UTF-8 file; rejects with `code: 'ENOENT'` when it does not exist. */
  readonly readFile: (path: string) => Promise<string>;
  /** The `KUBECONFIG` variable. */
  readonly kubeconfigEnv?: string;
  /** The user's home directory, for `~/.kube/config`. */
  readonly homeDir?: string;
}

/** A ready kubeconfig and what messages say about it. */
export interface LoadedKubeconfig {
  readonly config: KubeConfig;
  readonly context: string;
  /** The API server's URL. */
  readonly server: string;
}

/** The kubeconfig is missing, unreadable, or names no usable context. */
export class KubeconfigError extends PodliftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeconfigError';
  }
}

/**
 * Loads the kubeconfig kubectl would use and selects its context.
 * @throws KubeconfigError naming the file or context at fault
 */
export async function loadKubeconfig(
  choice: KubeconfigChoice,
  env: KubeconfigEnvironment,
): Promise<LoadedKubeconfig> {
  const files = await readKubeconfigFiles(choice, env);
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let current: string | undefined;
  for (const { config } of files) {
    // First to set a name wins, as client-go merges (later files do not override earlier ones).
    for (const c of config.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of config.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of config.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (current === undefined && config.getCurrentContext()) current = config.getCurrentContext();
  }
  const where = files.map((f) => f.path).join(', ');
  const name = choice.context ?? current;
  if (!name) {
    throw new KubeconfigError(
      `${where}: no current context; pass --context or run kubectl config use-context <name>`,
    );
  }
  const context = contexts.get(name);
  if (!context) {
    const known = [...contexts.keys()].join(', ') || 'none';
    throw new KubeconfigError(`${where}: no context "${name}" (contexts: ${known})`);
  }
  const cluster = clusters.get(context.cluster);
  if (!cluster)
    throw new KubeconfigError(
      `${where}: context "${name}" names cluster "${context.cluster}", which is not defined`,
    );
  if (context.user && !users.has(context.user)) {
    throw new KubeconfigError(
      `${where}: context "${name}" names user "${context.user}", which is not defined`,
    );
  }
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: context.user ? [users.get(context.user)] : [],
    contexts: [context],
    currentContext: name,
  });
  return { config, context: name, server: cluster.server };
}

async function readKubeconfigFiles(
  choice: KubeconfigChoice,
  env: KubeconfigEnvironment,
): Promise<{ path: string; config: KubeConfig }[]> {
  if (choice.kubeconfig !== undefined) {
    const text = await readOrUndefined(env, choice.kubeconfig);
    if (text === undefined) throw new KubeconfigError(`--kubeconfig ${choice.kubeconfig}: no such file`);
    return [{ path: choice.kubeconfig, config: parseKubeconfig(choice.kubeconfig, text) }];
  }
  const listed = (env.kubeconfigEnv ?? '').split(delimiter).filter((p) => p !== '');
  const paths = listed.length > 0 ? listed : env.homeDir ? [join(env.homeDir, '.kube', 'config')] : [];
  const files: { path: string; config: KubeConfig }[] = [];
  for (const path of paths) {
    const text = await readOrUndefined(env, path);
    if (text !== undefined) files.push({ path, config: parseKubeconfig(path, text) });
  }
  if (files.length === 0) {
    const looked = paths.length > 0 ? paths.join(', ') : 'no KUBECONFIG and no home directory';
    throw new KubeconfigError(
      `no kubeconfig found (looked at ${looked}); pass --kubeconfig, set KUBECONFIG, or give a dump file`,
    );
  }
  return files;
}

async function readOrUndefined(env: KubeconfigEnvironment, path: string): Promise<string | undefined> {
  try {
    return await env.readFile(path);
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return undefined;
    throw new KubeconfigError(`reading kubeconfig ${path}: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
}

function parseKubeconfig(path: string, text: string): KubeConfig {
  const config = new KubeConfig();
  try {
    config.loadFromString(text);
  } catch (e) {
    throw new KubeconfigError(`reading kubeconfig ${path}: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
  // Certificate and token files are relative to the kubeconfig's own directory, as kubectl reads them.
  config.makePathsAbsolute(dirname(path));
  return config;
}
