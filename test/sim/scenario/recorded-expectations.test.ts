import { describe, expect, it } from 'vitest';
import { KubeStore } from '../../../sim/fakes/kube/store';
import { within } from '../../../sim/scenario/expectations';
import { checkRecordedExpectations } from '../../../sim/scenario/recorded-expectations';
import { expectations } from '../../../sim/scenario/schema';
import { VirtualTime } from '../../../sim/virtual-time';
import { nodeManifest, podManifest } from '../../../sim/world/builders';
import type { ClusterWorld } from '../../../sim/world/cluster-world';
import type { Simulation } from '../../../sim/world/simulation';
import { WorldRecord } from '../../../sim/world/world-record';

// biome-ignore lint/suspicious/noExplicitAny: the test writes untyped JSON
type Json = Record<string, any>;

/** A world of two labelled nodes whose record is kept, and a way to bind pods and post Events. */
function recorded() {
  const store = new KubeStore();
  const time = new VirtualTime();
  const world = { time, fakes: { kube: { store, requests: [] } } } as unknown as ClusterWorld;
  const record = new WorldRecord(world);
  const labels = (type: string) => ({
    'karpenter.sh/nodepool': 'default',
    'node.kubernetes.io/instance-type': type,
  });
  store.seed('nodes', nodeManifest({ name: 'big', labels: labels('m5.xlarge') }));
  store.seed('nodes', nodeManifest({ name: 'small', labels: labels('m5.large') }));
  const bind = (pod: string, node: string) => {
    const current = store.get('pods', pod, 'default');
    store.update('pods', { ...current, spec: { ...(current.spec as Json), nodeName: node } });
  };
  const event = (reason: string, name: string, message: string) =>
    store.seed('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}.${reason}.${time.now()}`, namespace: 'default' },
      involvedObject: { kind: 'Pod', name, namespace: 'default' },
      reason,
      message,
    } as Json as never);
  const sim = { world: { fakes: { kube: { store } } }, record, elapsed: 0 } as unknown as Simulation;
  const check = (yaml: Json) => checkRecordedExpectations(expectations.parse(yaml), sim, within);
  return { store, time, record, bind, event, check };
}

describe('the recorded expectations', () => {
  it('count where named pods were bound, by the labels their node had, evicted or not', () => {
    const { store, time, record, bind, check } = recorded();
    store.seed('pods', podManifest({ name: 'late-abc12' }));
    store.seed('pods', podManifest({ name: 'other' }));
    time.advance(5_000);
    bind('late-abc12', 'big');
    bind('other', 'small');
    store.delete('pods', 'late-abc12', { namespace: 'default' });
    store.seed('pods', podManifest({ name: 'late-def34' }));
    bind('late-def34', 'small');
    expect(record.bindings.map((b) => [b.pod, b.node, b.at])).toEqual([
      ['default/late-abc12', 'big', 5_000],
      ['default/other', 'small', 5_000],
      ['default/late-def34', 'small', 5_000],
    ]);
    const outcomes = check({
      bindings: [
        { pods: ['late'], instanceType: 'm5.xlarge', max: 0 },
        { pods: ['late'], instanceType: 'm5.large', nodePool: 'default', min: 1, max: 1 },
        { pods: ['late', 'other'], min: 3 },
      ],
    });
    expect(outcomes.map((o) => o.held)).toEqual([false, true, true]);
    expect(outcomes[0].detail).toBe('was 1: default/late-abc12 to big at 5s');
  });

  it('count Events by the involved object’s name (a Deployment’s for its pods) and a text in the message', () => {
    const { event, check } = recorded();
    event('Nominated', 'web-abc12', 'Pod should schedule on: nodeclaim/default-x');
    event('Nominated', 'web-def34', 'Pod should schedule on: nodeclaim/default-x, node/ip-1');
    event('Nominated', 'webhook-1', 'Pod should schedule on: node/ip-2');
    const outcomes = check({
      events: [
        { reason: 'Nominated', kind: 'Pod', name: 'web', min: 2, max: 2 },
        { reason: 'Nominated', name: 'web', message: ', node/', min: 1, max: 1 },
        { reason: 'Nominated', message: 'node/ip-2', max: 0 },
      ],
    });
    expect(outcomes.map((o) => o.held)).toEqual([true, true, false]);
    expect(outcomes[1].description).toBe('Events Nominated of web saying ", node/" ≥ 1 and ≤ 1');
  });
});
