import type { DaemonSetManifest } from '../core/manifests/kube-objects';
import { podTemplateToPod } from '../core/manifests/pod-manifest';
import type { ParsedList } from '../core/ports/cluster';
import type { DaemonSet } from '../core/state/cluster-state';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { DAEMONSETS } from './kube-resources';
import { listAllPages } from './list-pages';
import { parseEach } from './parsed-list';
import { toPlainJson } from './plain-json';

/**
 * Every DaemonSet, reduced to the pod its template would run on each node (its requests are
 * reserved on every new NodeClaim it tolerates and selects). A DaemonSet whose template does not
 * parse is reported in `invalid`, naming it.
 */
export async function readDaemonSets(api: KubeApi): Promise<ParsedList<DaemonSet>> {
  const apps = await api.apps();
  let manifests: DaemonSetManifest[];
  try {
    const models = await listAllPages((cont, limit) =>
      apps.listDaemonSetForAllNamespaces({ limit, ...(cont ? { _continue: cont } : {}) }),
    );
    manifests = models.map((d) => toPlainJson(d) as DaemonSetManifest);
  } catch (error) {
    throw kubeError(error, 'listing DaemonSets', 'daemonsets.apps', DAEMONSETS);
  }
  return parseEach(manifests, 'DaemonSet', (manifest) => {
    const namespace = manifest.metadata?.namespace ?? 'default';
    const name = manifest.metadata?.name ?? '';
    const pod = podTemplateToPod(manifest.spec?.template ?? {}, {
      namespace,
      name,
      ownerKind: 'DaemonSet',
      location: { object: `DaemonSet/${namespace}/${name}` },
    });
    return { namespace, name, pod };
  });
}
