import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { functionIdentity } from '../../../sim/world/kube-identities';
import { Simulation } from '../../../sim/world/simulation';

/** The simulated cluster enforces manifests/' RBAC, and a refusal is a broken guarantee. */
describe('the RBAC invariant', () => {
  let sim: Simulation | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('reports a request the API server refused to a function, naming who asked for what', async () => {
    sim = await Simulation.start({ watcher: false });
    const kubeConfig = sim.world.fakes.kube.kubeConfig(functionIdentity('termination').token);
    // Termination may delete NodeClaims but never create one (manifests/termination-rbac.yaml).
    const created = kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
      group: 'karpenter.sh',
      version: 'v1',
      plural: 'nodeclaims',
      body: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'x' }, spec: {} },
    });
    await expect(created).rejects.toMatchObject({ code: 403 });
    await kubeConfig.makeApiClient(CoreV1Api).listNode();
    sim.invariants.check();
    const user = functionIdentity('termination').user.name;
    expect(sim.invariants.violations).toEqual([
      `the API server refused ${user} POST /apis/karpenter.sh/v1/nodeclaims (403 Forbidden): manifests/ does not grant it`,
    ]);
  });
});
