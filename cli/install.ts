import { readFileSync } from 'node:fs';
import { PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { KubeConfig } from '@kubernetes/client-node';
import { WATCHER_NAMESPACE } from '../shared/core/contracts/kubernetes-identities';
import {
  formatRef,
  installObjects,
  type ManifestObject,
  refOf,
  WATCHER_DEPLOYMENT,
} from '../shared/core/install/install-objects';
import { applyOrder } from '../shared/core/install/install-plan';
import {
  KOPS_FUNCTIONS_SERVICE_ACCOUNT,
  kopsIdentityObjects,
  withWatcherRole,
} from '../shared/core/install/kops-identity';
import { type DeploymentState, deploymentRollout } from '../shared/core/install/rollout-status';
import { KubeClusterManifests, serviceAccountToken } from '../shared/kube/cluster-manifests';
import { KubeApi } from '../shared/kube/kube-api';
import { staticKubeConfig } from '../shared/kube/kubeconfig-source';
import { checkServerVersion } from '../shared/kube/server-version';

/** What `podlift install` borrows from the CLI's runner and the process, injected for tests. */
export interface InstallCommandTools {
  readonly parseArgs: (
    args: string[],
    options: Readonly<Record<string, { type: 'string' | 'boolean' }>>,
  ) => { values: Record<string, unknown>; positionals: string[] };
  readonly usageError: (message: string) => Error;
  readonly stdout: (text: string) => void;
  /** manifests/ as kustomize renders it. */
  readonly manifests: () => ManifestObject[];
  /** The kubeconfig as kubectl picks it (cli/kubeconfig.ts), with `--kubeconfig` and `--context`. */
  readonly kubeConfig: (options: {
    kubeconfig?: string;
    context?: string;
  }) => KubeConfig | Promise<KubeConfig>;
  readonly ssm: (region: string) => SSMClient;
  readonly sleep: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch (the wait's deadline). */
  readonly now: () => number;
}

const OPTIONS = {
  cluster: { type: 'string' },
  region: { type: 'string' },
  'event-bus': { type: 'string' },
  image: { type: 'string' },
  kops: { type: 'boolean' },
  'service-cidr': { type: 'string' },
  'watcher-role-arn': { type: 'string' },
  'key-id': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  timeout: { type: 'string' },
} as const;

/** A year: the API server caps it at its --service-account-max-token-expiration. */
const TOKEN_SECONDS = 365 * 24 * 3600;
const POLL_MS = 5000;

/** Runs `podlift install`. */
export async function installCommand(args: string[], tools: InstallCommandTools): Promise<void> {
  const { values, positionals } = tools.parseArgs(args, OPTIONS);
  if (positionals.length > 0) throw tools.usageError(`unexpected argument '${positionals[0]}'`);
  const required = (name: 'cluster' | 'region' | 'event-bus' | 'image'): string => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') throw tools.usageError(`--${name} is required`);
    return value;
  };
  const text = (name: keyof typeof OPTIONS): string | undefined =>
    typeof values[name] === 'string' ? (values[name] as string) : undefined;
  const cluster = required('cluster');
  const region = required('region');
  const timeout = Number(text('timeout') ?? '600');
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw tools.usageError(`--timeout ${JSON.stringify(text('timeout'))} must be a number of seconds`);
  }
  const kops = values.kops === true;
  for (const name of ['service-cidr', 'watcher-role-arn', 'key-id'] as const) {
    if (!kops && text(name) !== undefined) throw tools.usageError(`--${name} needs --kops`);
  }
  const kubeConfig = await tools.kubeConfig({
    ...(text('kubeconfig') ? { kubeconfig: text('kubeconfig') } : {}),
    ...(text('context') ? { context: text('context') } : {}),
  });
  const source = staticKubeConfig(kubeConfig);
  const manifests = new KubeClusterManifests(source);

  let objects = installObjects(tools.manifests(), {
    clusterName: cluster,
    eventBusName: required('event-bus'),
    region,
    watcherImage: required('image'),
  });
  if (kops) objects = [...objects, ...kopsIdentityObjects()];
  const roleArn = text('watcher-role-arn');
  if (roleArn) objects = withWatcherRole(objects, roleArn);
  for (const object of applyOrder(objects)) {
    await manifests.apply(object);
    tools.stdout(`applied ${formatRef(refOf(object))}\n`);
  }

  if (kops) {
    const parameter = `/podlift/${cluster}/cluster`;
    const current = kubeConfig.getCurrentCluster();
    const ca =
      current?.caData ?? (current?.caFile ? readFileSync(current.caFile).toString('base64') : undefined);
    if (!current || !ca) {
      throw new Error("the kubeconfig's current cluster has no certificate authority for the parameter");
    }
    const version = await checkServerVersion(new KubeApi(source));
    const { token, expiresAt } = await serviceAccountToken(
      source,
      WATCHER_NAMESPACE,
      KOPS_FUNCTIONS_SERVICE_ACCOUNT,
      TOKEN_SECONDS,
    );
    const keyId = text('key-id');
    await tools.ssm(region).send(
      new PutParameterCommand({
        Name: parameter,
        Type: 'SecureString',
        Overwrite: true,
        ...(keyId ? { KeyId: keyId } : {}),
        Value: JSON.stringify({
          endpoint: current.server,
          certificateAuthority: ca,
          token,
          kubernetesVersion: `${version.major}.${version.minor}`,
          serviceCidr: text('service-cidr') ?? '100.64.0.0/13',
        }),
      }),
    );
    tools.stdout(
      `wrote ${parameter} (token of ${WATCHER_NAMESPACE}/${KOPS_FUNCTIONS_SERVICE_ACCOUNT}, expires ${expiresAt ?? 'never'})\n`,
    );
  }

  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === WATCHER_DEPLOYMENT);
  if (!deployment) throw new Error(`podlift's manifests have no Deployment ${WATCHER_DEPLOYMENT}`);
  const deadline = tools.now() + timeout * 1000;
  for (;;) {
    const live = await manifests.read(refOf(deployment));
    const rollout = live
      ? deploymentRollout(live as unknown as DeploymentState)
      : { state: 'progressing' as const, message: 'waiting for the Deployment' };
    if (rollout.state === 'done') {
      tools.stdout(`${rollout.message}\n`);
      return;
    }
    if (rollout.state === 'failed') throw new Error(rollout.message);
    if (tools.now() >= deadline)
      throw new Error(`the watcher is not ready after ${timeout} s: ${rollout.message}`);
    await tools.sleep(POLL_MS);
  }
}
