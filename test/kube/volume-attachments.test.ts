import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResourceType } from '../../sim/fakes/kube';
import { defaultResources } from '../../sim/fakes/kube';
import { podManifest } from '../../sim/world/builders';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

// The fake serves storage.k8s.io/v1 VolumeAttachments by default; claims are added here.
const withClaims: ResourceType[] = [
  ...defaultResources,
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
  h = await startHarness({ resources: withClaims });
});
afterEach(() => h.server.close());

function attachment(name: string, nodeName: string, source: object): void {
  h.server.store.seed('volumeattachments.storage.k8s.io', {
    metadata: { name },
    spec: { attacher: 'ebs.csi.aws.com', nodeName, source },
  });
}

describe('KubeCluster.volumeAttachments', () => {
  it('reads every VolumeAttachment with its node and PersistentVolume', async () => {
    attachment('csi-a', 'n1', { persistentVolumeName: 'pv-a' });
    attachment('csi-b', 'n2', {
      inlineVolumeSpec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } },
    });
    expect(await h.cluster.volumeAttachments()).toStrictEqual([
      { name: 'csi-a', nodeName: 'n1', persistentVolumeName: 'pv-a' },
      { name: 'csi-b', nodeName: 'n2' },
    ]);
    expect(h.server.requests.at(-1)?.path).toBe('/apis/storage.k8s.io/v1/volumeattachments');
  });

  it('names the collection when the server refuses', async () => {
    h.server.failNext('list', '*', 503);
    const error = await rejectionOf(h.cluster.volumeAttachments());
    expect(error.message).toMatch(/^listing VolumeAttachments: ServiceUnavailable/);
  });
});

describe('KubeCluster.claimedVolumes', () => {
  it('maps each bound claim to its PersistentVolume and leaves unbound ones out', async () => {
    h.server.store.seed('persistentvolumeclaims', {
      metadata: { name: 'data', namespace: 'db' },
      spec: { volumeName: 'pv-data' },
    });
    h.server.store.seed('persistentvolumeclaims', {
      metadata: { name: 'waiting', namespace: 'db' },
      spec: {},
    });
    expect(await h.cluster.claimedVolumes()).toStrictEqual(new Map([['db/data', 'pv-data']]));
  });
});

describe('pods read from a node carry what termination needs', () => {
  it('reads status.startTime, metadata.deletionTimestamp and the claims a pod mounts', async () => {
    const manifest = podManifest({ name: 'db-0', nodeName: 'n1', ready: true, claims: ['data'] });
    h.server.store.seed('pods', {
      ...manifest,
      status: { ...manifest.status, startTime: '2026-11-21T09:00:00Z' },
    });
    const [pod] = (await h.cluster.podsOnNode('n1')).items;
    expect(pod).toMatchObject({ startTime: '2026-11-21T09:00:00Z', volumeClaims: ['data'] });
    expect(pod.deletionTimestamp).toBeUndefined();

    const held = podManifest({ name: 'held', nodeName: 'n1', ready: true });
    h.server.store.seed('pods', {
      ...held,
      metadata: { ...held.metadata, finalizers: ['example.com/hold'] },
    });
    h.server.store.delete('pods', 'held');
    const terminating = (await h.cluster.podsOnNode('n1')).items.find((p) => p.name === 'held');
    expect(terminating).toMatchObject({ deleting: true, deletionTimestamp: expect.any(String) });
  });
});
