import { makeDisruptionHandler } from '../../../functions/disruption/handler';
import { runtimeOf } from '../../../functions/runtime';
import type { FeatureGates } from '../../../shared/core/model/feature-gates';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { podManifest } from '../../../sim/world/builders';
import {
  lambdaContext,
  NODE,
  type ProvisionerWorld,
  scheduledEvent,
  withOneNode,
} from '../provisioner/world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
export type Json = Record<string, any>;

/**
 * One initialized node running `pods`, the default NodePool changed by `pool`, and the
 * disruption handler; EC2 sells `instanceTypes` (the node is the cheapest of them); `gates`
 * changes the function's feature gates.
 */
export async function disruptionWorld(
  pods: readonly object[],
  pool: (spec: Json) => Json = (s) => s,
  instanceTypes?: readonly string[],
  gates: Partial<FeatureGates> = {},
) {
  const one = await withOneNode(pods, instanceTypes);
  const pw = one.pw;
  await pw.handler(scheduledEvent('p3'), lambdaContext('p3')); // initializes the NodeClaim
  const store = pw.world.fakes.kube.store;
  const current = store.get('nodepools.karpenter.sh', 'default') as Json;
  store.update('nodepools.karpenter.sh', { ...current, spec: pool(structuredClone(current.spec)) });
  const seen = new RecordingObservability();
  const { config } = pw.world.ports;
  const ports = {
    ...pw.world.ports,
    config: { ...config, featureGates: { ...config.featureGates, ...gates } },
  };
  const runtime = runtimeOf('disruption', ports, pw.world.time, seen.log, seen.metricsPort);
  let n = 0;
  const disrupt = () =>
    makeDisruptionHandler(() => runtime)(scheduledEvent(`d${++n}`), lambdaContext(`d${n}`));
  return { ...one, seen, disrupt };
}

/** NodeClaim `name` as the API server stores it. */
export const claim = (pw: ProvisionerWorld, name: string) =>
  pw.world.fakes.kube.store.get('nodeclaims.karpenter.sh', name) as Json;
/** Every NodeClaim. */
export const claims = (pw: ProvisionerWorld) =>
  pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[];
/** Node `name`'s taints. */
export const taints = (pw: ProvisionerWorld, name = NODE) =>
  ((pw.world.fakes.kube.store.get('nodes', name) as Json).spec.taints ?? []) as Json[];
/** The Events recorded, as `reason: message` on `kind/name`. */
export const events = (pw: ProvisionerWorld) =>
  (pw.world.fakes.kube.store.list('events').items as Json[]).map((e) => ({
    object: `${e.involvedObject.kind}/${e.involvedObject.name}`,
    type: e.type as string,
    reason: e.reason as string,
    message: e.message as string,
  }));

/** A ReplicaSet's pod bound to {@link NODE}, with `annotations`. */
export const bound = (name: string, annotations: Record<string, string> = {}) => ({
  ...podManifest({ name, nodeName: NODE, ready: true, ownerKind: 'ReplicaSet', requests: { cpu: '250m' } }),
  metadata: {
    name,
    namespace: 'default',
    annotations,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', controller: true }],
  },
});
