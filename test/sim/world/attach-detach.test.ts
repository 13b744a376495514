import { StorageV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../../sim/fakes/kube';
import { VirtualTime } from '../../../sim/virtual-time';
import { AttachDetachStandIn } from '../../../sim/world/attach-detach';

let time: VirtualTime;
let server: FakeKubeApiServer;
beforeEach(async () => {
  time = new VirtualTime();
  server = await startFakeKubeApiServer({ time });
});
afterEach(() => server.close());

const pod = (name: string, nodeName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'app' }] },
  status: { phase: 'Running' },
});

describe('attach-detach stand-in', () => {
  it('serves storage.k8s.io/v1 VolumeAttachments to the real client', async () => {
    const attach = new AttachDetachStandIn(server.store, time);
    const [name] = attach.attach('n1', 1, undefined);
    const storage = server.kubeConfig().makeApiClient(StorageV1Api);
    const list = await storage.listVolumeAttachment();
    expect(
      list.items.map((v) => [v.metadata?.name, v.spec.nodeName, v.spec.attacher, v.status?.attached]),
    ).toEqual([[name, 'n1', 'ebs.csi.aws.com', true]]);
  });

  it('detaches a node’s volumes a set time after its last pod went, and never without one', () => {
    const attach = new AttachDetachStandIn(server.store, time);
    server.store.seed('pods', pod('web', 'n1'));
    const [timed] = attach.attach('n1', 1, 10_000);
    const [stuck] = attach.attach('n1', 1, undefined);
    time.advance(60_000);
    expect(attach.step()).toEqual([]);
    server.store.delete('pods', 'web', { gracePeriodSeconds: 0 });
    expect(attach.step()).toEqual([]);
    expect(attach.nextDue()).toBe(time.now() + 10_000);
    time.advance(9_000);
    expect(attach.step()).toEqual([]);
    time.advance(1_000);
    expect(attach.step()).toEqual([timed]);
    time.advance(3_600_000);
    attach.step();
    expect(server.store.find('volumeattachments.storage.k8s.io', timed)).toBeUndefined();
    expect(server.store.find('volumeattachments.storage.k8s.io', stuck)).toBeDefined();
  });
});
