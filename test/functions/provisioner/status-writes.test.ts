import { afterEach, describe, expect, it } from 'vitest';
import {
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  scheduledEvent,
  seedPendingPods,
} from './world';

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const run = (pw: ProvisionerWorld, id: string) => pw.handler(scheduledEvent(id), lambdaContext(id));

/** The status writes the fake API server received: method and path. */
const statusWrites = (pw: ProvisionerWorld) =>
  pw.world.fakes.kube.requests
    .filter((r) => r.method !== 'GET' && r.path.endsWith('/status'))
    .map((r) => `${r.method} ${r.path}`);

describe('provisioner: status writes', () => {
  // The fake API server returns custom resources with their keys sorted, as a real one does
  // (unstructured JSON re-encoded by encoding/json): a writer comparing JSON text would see a
  // change every run and PUT the same status again.
  it('writes no NodePool, EC2NodeClass or NodeClaim status when nothing changed', async () => {
    w = await provisionerWorld(['m5.large']);
    seedPendingPods(w.world, 1, '250m');
    await run(w, 'r1');
    await run(w, 'r2');
    w.world.fakes.kube.clearRequests();
    await run(w, 'r3');
    expect(statusWrites(w)).toStrictEqual([]);
  });

  it('writes the NodePool status again once what it reports changes', async () => {
    w = await provisionerWorld(['m5.large']);
    await run(w, 'r1');
    w.world.fakes.kube.clearRequests();
    seedPendingPods(w.world, 1, '250m');
    await run(w, 'r2');
    // The run that launches reports the NodePool as it read it; the next one sees the new node.
    await run(w, 'r3');
    expect(statusWrites(w)).toContain('PUT /apis/karpenter.sh/v1/nodepools/default/status');
  });
});
