import { describe, expect, it } from 'vitest';
import {
  CONFIG_DIGEST_ANNOTATION,
  configDigest,
  formatRef,
  installObjects,
  type ManifestObject,
  type ObjectRef,
  parseRef,
} from '../../../shared/core/install/install-objects';
import { applyOrder, deletionOrder, pruneRefs } from '../../../shared/core/install/install-plan';

const ref = (kind: string, name: string, namespace?: string): ObjectRef => ({
  apiVersion: 'v1',
  kind,
  name,
  ...(namespace ? { namespace } : {}),
});

const crd = ref('CustomResourceDefinition', 'nodepools.karpenter.sh');
const namespace = ref('Namespace', 'podlift');
const deployment = ref('Deployment', 'podlift-watcher', 'podlift');
const role = ref('ClusterRole', 'podlift-watcher');

describe('applyOrder', () => {
  it('puts the Namespace and CRDs first and the Deployment after what it needs', () => {
    expect(applyOrder([deployment, role, crd, ref('Widget', 'w'), namespace])).toEqual([
      namespace,
      crd,
      role,
      deployment,
      ref('Widget', 'w'),
    ]);
  });
});

describe('deletionOrder', () => {
  it('never deletes a CRD and deletes in reverse apply order', () => {
    expect(deletionOrder([crd, namespace, role, deployment])).toEqual([deployment, role, namespace]);
  });
});

describe('pruneRefs', () => {
  it('deletes what only the previous version had, except CRDs', () => {
    const gone = ref('ClusterRole', 'podlift-old');
    const goneCrd = ref('CustomResourceDefinition', 'olds.karpenter.sh');
    expect(pruneRefs([crd, goneCrd, role, gone], [crd, role])).toEqual([gone]);
  });

  it('prunes the old object when the new version moved it to another namespace', () => {
    const moved = ref('Role', 'lease', 'other');
    expect(pruneRefs([ref('Role', 'lease', 'podlift')], [moved])).toEqual([ref('Role', 'lease', 'podlift')]);
  });
});

describe('formatRef and parseRef', () => {
  it.each([[deployment], [role], [{ ...crd, apiVersion: 'apiextensions.k8s.io/v1' }]])(
    'round-trip %j',
    (r) => {
      expect(parseRef(formatRef(r))).toEqual(r);
    },
  );

  it('refuses a string it did not make', () => {
    expect(parseRef('ClusterRole')).toBeUndefined();
  });
});

describe('installObjects', () => {
  const base: ManifestObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'podlift-watcher', namespace: 'podlift' },
      data: { PORT: '8080', CLUSTER_NAME: 'my-cluster' },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'podlift-watcher', namespace: 'podlift' },
      spec: {
        template: {
          metadata: { labels: { a: 'b' } },
          spec: { containers: [{ name: 'watcher', image: 'podlift/watcher:0.1.0' }] },
        },
      },
    },
  ];
  const values = {
    clusterName: 'prod',
    eventBusName: 'podlift-prod',
    region: 'eu-west-1',
    watcherImage: 'r/w:1',
  };

  it('fills the ConfigMap and image and stamps the config digest on the pod template', () => {
    const [configMap, filled] = installObjects(base, values);
    const data = {
      PORT: '8080',
      CLUSTER_NAME: 'prod',
      EVENT_BUS_NAME: 'podlift-prod',
      AWS_REGION: 'eu-west-1',
    };
    expect(configMap?.data).toEqual(data);
    expect(filled?.spec).toEqual({
      template: {
        metadata: { labels: { a: 'b' }, annotations: { [CONFIG_DIGEST_ANNOTATION]: configDigest(data) } },
        spec: { containers: [{ name: 'watcher', image: 'r/w:1' }] },
      },
    });
    expect(base[1]?.spec).toEqual({
      template: {
        metadata: { labels: { a: 'b' } },
        spec: { containers: [{ name: 'watcher', image: 'podlift/watcher:0.1.0' }] },
      },
    });
  });

  it('changes the digest with any value and not with key order', () => {
    expect(configDigest({ A: '1', B: '2' })).toBe(configDigest({ B: '2', A: '1' }));
    expect(configDigest({ A: '1', B: '2' })).not.toBe(configDigest({ A: '1', B: '3' }));
    expect(configDigest({ A: '1' })).toMatch(/^[0-9a-f]{8}$/);
  });

  it('refuses manifests without the watcher', () => {
    expect(() => installObjects(base.slice(0, 1), values)).toThrow(
      /lack ConfigMap podlift-watcher or Deployment podlift-watcher/,
    );
  });
});
