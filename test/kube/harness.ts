/** A fake API server, a virtual clock and the adapter pointed at them, for the adapter tests. */
import { KubeApi } from '../../shared/kube/kube-api';
import { KubeCluster } from '../../shared/kube/kube-cluster';
import { staticKubeConfig } from '../../shared/kube/kubeconfig-source';
import type { FakeKubeApiServer, FakeKubeApiServerOptions } from '../../sim/fakes/kube';
import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { VirtualTime } from '../../sim/virtual-time';

/** What each adapter test gets. */
export interface Harness {
  readonly server: FakeKubeApiServer;
  readonly clock: VirtualTime;
  readonly api: KubeApi;
  readonly cluster: KubeCluster;
}

/** Starts a fake API server on the returned clock's timeline. */
export async function startHarness(options: FakeKubeApiServerOptions = {}): Promise<Harness> {
  const clock = new VirtualTime(Date.parse('2026-11-21T10:00:00Z'));
  const server = await startFakeKubeApiServer({ time: clock, ...options });
  const source = staticKubeConfig(server.kubeConfig());
  return { server, clock, api: new KubeApi(source), cluster: new KubeCluster(source, clock) };
}

/** The error `call` rejects with (fails the test when it resolves). */
export async function rejectionOf(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('expected the call to be rejected');
}
