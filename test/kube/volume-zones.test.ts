import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/core/model/pod';
import { withVolumeZones } from '../../shared/kube/volume-zones';
import type { ResourceType } from '../../sim/fakes/kube';
import { defaultResources } from '../../sim/fakes/kube';
import { podManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { startHarness } from './harness';

// The fake serves what podlift's functions touch; volumes are added for these tests.
const volumeResources: ResourceType[] = [
  ...defaultResources,
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    statusSubresource: true,
    custom: false,
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    statusSubresource: true,
    custom: false,
  },
];

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ resources: volumeResources });
});
afterEach(() => h.server.close());

function volume(name: string, zoneKey: string, zones: string[]): void {
  h.server.store.seed('persistentvolumes', {
    metadata: { name },
    spec: {
      capacity: { storage: '10Gi' },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: zoneKey, operator: 'In', values: zones }] }],
        },
      },
    },
  });
}

function claim(name: string, volumeName?: string, namespace = 'default'): void {
  h.server.store.seed('persistentvolumeclaims', {
    metadata: { name, namespace },
    spec: { ...(volumeName ? { volumeName } : {}), resources: { requests: { storage: '10Gi' } } },
  });
}

const zoneTerms = (pod: Pod | undefined) => pod?.requiredNodeAffinity?.map((t) => t.matchExpressions);

describe('KubeCluster.pendingPods with zonal volumes', () => {
  it("restricts a pod to the zone of its bound EBS volume (the CSI driver's key is normalised)", async () => {
    volume('pv-a', 'topology.ebs.csi.aws.com/zone', ['us-east-1a']);
    claim('data-0', 'pv-a', 'db');
    h.server.store.seed(
      'pods',
      podManifest({ name: 'db-0', namespace: 'db', claims: ['data-0'], unschedulable: true }),
    );

    const pending = await h.cluster.pendingPods();

    expect(zoneTerms(pending.items[0])).toEqual([
      [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }],
    ]);
  });

  it('intersects the zones of several volumes and leaves unbound claims alone', async () => {
    volume('pv-ab', 'topology.kubernetes.io/zone', ['us-east-1a', 'us-east-1b']);
    volume('pv-bc', 'topology.kubernetes.io/zone', ['us-east-1b', 'us-east-1c']);
    claim('one', 'pv-ab');
    claim('two', 'pv-bc');
    claim('waiting');
    h.server.store.seed('pods', podManifest({ name: 'both', claims: ['one', 'two'], unschedulable: true }));
    h.server.store.seed('pods', podManifest({ name: 'unbound', claims: ['waiting'], unschedulable: true }));
    h.server.store.seed('pods', podManifest({ name: 'no-volumes', unschedulable: true }));

    const pending = await h.cluster.pendingPods();
    const byName = new Map(pending.items.map((p) => [p.name, p]));

    expect(zoneTerms(byName.get('both'))).toEqual([
      [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }],
    ]);
    expect(byName.get('unbound')?.requiredNodeAffinity).toBeUndefined();
    expect(byName.get('no-volumes')?.requiredNodeAffinity).toBeUndefined();
  });

  it('does not list volumes at all when no pending pod mounts a claim', async () => {
    h.server.store.seed('pods', podManifest({ name: 'plain', unschedulable: true }));
    await h.cluster.pendingPods();
    expect(h.server.requests.map((r) => r.path)).toEqual(['/api/v1/pods']);
  });
});

describe('withVolumeZones', () => {
  const base = (required?: Pod['requiredNodeAffinity']): Pod => ({
    namespace: 'default',
    name: 'p',
    uid: 'u',
    labels: {},
    requests: { cpu: 100, pods: 1 },
    nodeSelector: {},
    ...(required ? { requiredNodeAffinity: required } : {}),
    preferredNodeAffinity: [],
    tolerations: [],
    topologySpread: [],
    podAffinity: [],
    podAntiAffinity: [],
    preferredPodAffinity: [],
    preferredPodAntiAffinity: [],
    priority: 0,
  });

  it('ANDs the zone requirement into every existing ORed term', () => {
    const pod = withVolumeZones(
      base([
        { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] },
        { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] },
      ]),
      ['us-east-1a'],
    );
    const zone = { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] };
    expect(zoneTerms(pod)).toEqual([
      [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }, zone],
      [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, zone],
    ]);
  });

  it('an empty zone list selects nothing', () => {
    expect(zoneTerms(withVolumeZones(base(), []))).toEqual([
      [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [] }],
    ]);
  });
});
