import { readFileSync } from 'node:fs';
import { makeInterruptionHandler } from '../../../functions/interruption/handler';
import { runtimeOf } from '../../../functions/runtime';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { nodeManifest, podManifest } from '../../../sim/world/builders';
import {
  lambdaContext,
  NODE,
  type ProvisionerWorld,
  scheduledEvent,
  withOneNode,
} from '../provisioner/world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
export type Json = Record<string, any>;

/** A real AWS event payload from test/fixtures/aws-events. */
export const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../fixtures/aws-events/${name}.json`, import.meta.url), 'utf8'));

/** A fixture's event about `instanceId` instead of the example instance. */
export function about(name: string, instanceId: string): Json {
  const event = fixture(name);
  if (event.detail['instance-id']) event.detail['instance-id'] = instanceId;
  if (event.detail.affectedEntities) event.detail.affectedEntities = [{ entityValue: instanceId }];
  return event;
}

/** The SQS record the event source mapping delivers for `body` (an event, or a raw string). */
export function sqsRecord(body: Json | string, messageId: string): Json {
  const template = fixture('sqs-lambda-event').Records[0];
  return { ...template, messageId, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

/** An SQS event whose records carry `bodies`, as the event source mapping delivers them. */
export function sqsEvent(bodies: readonly Json[], ids = bodies.map((_, i) => `msg-${i}`)) {
  return { Records: bodies.map((body, i) => sqsRecord(body, ids[i] ?? `msg-${i}`)) };
}

/** One registered node ({@link NODE}) running `pods`, and the interruption handler over the world. */
export async function interruptionWorld(
  pods: readonly object[] = [],
  capacityType: 'on-demand' | 'spot' = 'on-demand',
) {
  const one = await withOneNode(pods, ['m5.large', 'm5.xlarge'], capacityType);
  const seen = new RecordingObservability();
  const runtime = runtimeOf(
    'interruption',
    one.pw.world.ports,
    one.pw.world.time,
    seen.log,
    seen.metricsPort,
  );
  return { ...one, seen, handle: makeInterruptionHandler(() => runtime) };
}

/** A pod of a ReplicaSet bound to `node`, needing 1 CPU. */
export const boundPod = (name: string, node = NODE) =>
  podManifest({ name, nodeName: node, ready: true, ownerKind: 'ReplicaSet', requests: { cpu: '1' } });

/** web-1 on {@link NODE}. */
export const web = () => boundPod('web-1');

export const claims = (pw: ProvisionerWorld) =>
  pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[];

export const claim = (pw: ProvisionerWorld, name: string) =>
  pw.world.fakes.kube.store.get('nodeclaims.karpenter.sh', name) as Json;

export const running = (pw: ProvisionerWorld) =>
  pw.world.fakes.ec2
    .listInstances()
    .filter((i) => !['shutting-down', 'terminated'].includes(i.State?.Name ?? ''));

/**
 * Adds a second registered node `name` to the world, launched by the provisioner for a pod that
 * does not fit beside {@link web} and then running `pod` instead.
 */
export async function addNode(pw: ProvisionerWorld, name: string, pod: string) {
  const store = pw.world.fakes.kube.store;
  const before = new Set(claims(pw).map((c) => c.metadata.name));
  const filler = podManifest({
    name: `filler-${name}`,
    requests: { cpu: '1500m', memory: '512Mi' },
    unschedulable: true,
    ownerKind: 'ReplicaSet',
  });
  store.seed('pods', filler);
  await pw.handler(scheduledEvent(`add-${name}`), lambdaContext(`add-${name}`));
  const added = claims(pw).find((c) => !before.has(c.metadata.name));
  if (!added) throw new Error(`no NodeClaim was launched for ${name}`);
  const node = nodeManifest({ name, ready: true, allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' } });
  store.seed('nodes', { ...node, spec: { ...node.spec, providerID: added.status.providerID } });
  store.delete('pods', `filler-${name}`, { namespace: 'default' });
  store.seed('pods', boundPod(pod, name));
  await pw.handler(scheduledEvent(`reg-${name}`), lambdaContext(`reg-${name}`));
  return {
    claimName: String(added.metadata.name),
    instanceId: String(added.status.providerID).split('/').pop() ?? '',
  };
}

/**
 * The ReplicaSet controller as far as these tests need it: a ReplicaSet pod being deleted (an
 * eviction) gets a copy at once, with the same requests, which kube-scheduler finds no room for.
 */
export function replicaSetCopies(pw: ProvisionerWorld): void {
  const store = pw.world.fakes.kube.store;
  const copied = new Set<string>();
  store.subscribe(({ object }) => {
    const pod = object as Json;
    const name = String(pod.metadata?.name);
    if (object.kind !== 'Pod' || !pod.metadata.deletionTimestamp || copied.has(name)) return;
    if (pod.metadata.ownerReferences?.[0]?.kind !== 'ReplicaSet') return;
    copied.add(name);
    const requests = pod.spec.containers[0].resources.requests;
    store.seed(
      'pods',
      podManifest({ name: `${name}-copy`, requests, unschedulable: true, ownerKind: 'ReplicaSet' }),
    );
  });
}
