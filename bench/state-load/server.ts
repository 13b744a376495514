import { CONSOLIDATABLE, podEventsFingerprint } from '../../shared/core/disruption/consolidatable';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { Pod } from '../../shared/core/model/pod';
import { type KubeStore, startFakeKubeApiServer } from '../../sim/fakes/kube';
import { type ClusterShape, clusterObjects, LAST_POD_EVENT } from './cluster-objects';

/**
 * The API server side of the state-load bench, in a process of its own so that the measured
 * process's heap holds only what an invocation holds. Seeds a cluster of the shape given as
 * JSON in argv[2], prints `READY <url>` and serves until its stdin closes.
 */
async function main(): Promise<void> {
  const shape = JSON.parse(process.argv[2] ?? '') as ClusterShape;
  const server = await startFakeKubeApiServer({ maintainDisruptionBudgetStatus: false });
  let objects = 0;
  for (const [resource, object] of clusterObjects(shape)) {
    server.store.seed(resource, object);
    objects++;
  }
  settle(server.store);
  process.stdout.write(`READY ${server.url} ${objects}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
}

/**
 * Writes on every NodeClaim what the disruption loop records about its pods in a cluster it has
 * run on for a while (the `podlift.dev/pod-events` fingerprint of the pods the store gave uids,
 * lastPodEventTime, `Consolidatable`), so the bench measures a steady run, not the one-time
 * catch-up of a cluster podlift first meets.
 */
function settle(store: KubeStore): void {
  const uidsByNode = new Map<string, string[]>();
  store.scan('pods', {}, (pod) => {
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (nodeName) uidsByNode.set(nodeName, [...(uidsByNode.get(nodeName) ?? []), pod.metadata.uid ?? '']);
  });
  for (const claim of store.list('nodeclaims.karpenter.sh').items) {
    const status = claim.status as { nodeName: string; conditions: object[] };
    const pods = (uidsByNode.get(status.nodeName) ?? []).map(
      (uid) => ({ uid, ownerKind: 'ReplicaSet' }) as Pod,
    );
    const annotated = store.update('nodeclaims.karpenter.sh', {
      ...claim,
      metadata: {
        ...claim.metadata,
        annotations: { ...claim.metadata.annotations, [ANNOTATIONS.podEvents]: podEventsFingerprint(pods) },
      },
    });
    store.updateStatus('nodeclaims.karpenter.sh', {
      ...annotated,
      status: {
        ...status,
        lastPodEventTime: LAST_POD_EVENT,
        conditions: [
          ...status.conditions,
          {
            type: CONSOLIDATABLE,
            status: 'True',
            reason: CONSOLIDATABLE,
            message: '',
            lastTransitionTime: LAST_POD_EVENT,
          },
        ],
      },
    });
  }
}

await main();
