import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { type ClusterShape, clusterObjects } from './cluster-objects';

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
  process.stdout.write(`READY ${server.url} ${objects}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
}

await main();
