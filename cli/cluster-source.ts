import {
  type ClusterSnapshot,
  clusterSnapshotFromObjects,
  clusterSnapshotFromYaml,
} from './cluster-snapshot';
import { type KubeconfigChoice, type KubeconfigEnvironment, loadKubeconfig } from './kubeconfig';
import { readLiveCluster } from './live-cluster';

/**
 * Where `plan`, `savings` and `diff` read a cluster from: a dump file (`kubectl get ... -o
 * yaml`: a v1 List or multi-document YAML; `-` is standard input) or, with no file, the live
 * cluster of the kubeconfig and context kubectl would use (`--kubeconfig`, `--context`).
 */

/** The command line's choice of cluster. */
export interface ClusterSourceChoice extends KubeconfigChoice {
  /** A dump file, `-` for standard input; absent reads the live cluster. */
  readonly file?: string;
}

/** What reading a cluster needs from the process. */
export interface ClusterSourceIO extends KubeconfigEnvironment {
  /** Reads all of standard input. */
  readonly stdin: () => Promise<string>;
  /** Reads a dump file; errors name the file (the CLI's readInput). */
  readonly readDump: (path: string) => Promise<string>;
}

/** A cluster snapshot and the notes of reading it. */
export interface LoadedCluster {
  readonly snapshot: ClusterSnapshot;
  /** Whether it came from a live API server (else from a dump). */
  readonly live: boolean;
  /**
   * Karpenter's CRDs the live cluster does not serve, read as empty: a cluster without
   * Karpenter (Cluster Autoscaler, managed node groups) has no NodePools to plan with.
   */
  readonly missingCrds: readonly string[];
  /** The server's gitVersion, for a live read. */
  readonly kubernetesVersion?: string;
}

/**
 * Reads the chosen cluster into one snapshot.
 * @throws ValidationError for a dump that does not parse (naming file, document, object, field);
 *   KubeconfigError for a missing kubeconfig or unknown context; ClusterReadError for an
 *   unreachable cluster, a refused read (naming verb and resource) or a too old Kubernetes
 */
export async function loadCluster(choice: ClusterSourceChoice, io: ClusterSourceIO): Promise<LoadedCluster> {
  if (choice.file !== undefined) {
    const source = choice.file === '-' ? '<stdin>' : choice.file;
    const text = choice.file === '-' ? await io.stdin() : await io.readDump(choice.file);
    return { snapshot: clusterSnapshotFromYaml(text, source), live: false, missingCrds: [] };
  }
  const kubeconfig = await loadKubeconfig(choice, io);
  const read = await readLiveCluster(kubeconfig);
  const source = `context "${kubeconfig.context}" (${kubeconfig.server})`;
  const snapshot = clusterSnapshotFromObjects(read.objects, source);
  const missingCrds = read.notServed.map((e) => `${e.resource.plural}.${e.resource.group}`);
  const warnings =
    missingCrds.length > 0
      ? [
          ...snapshot.warnings,
          `${source}: Karpenter's CRDs are not installed (${missingCrds.join(', ')} not served): read as none`,
        ]
      : snapshot.warnings;
  return {
    snapshot: { ...snapshot, warnings },
    live: true,
    missingCrds,
    kubernetesVersion: read.version.gitVersion,
  };
}
