import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PodSpecCache, podFromManifest, podTemplateToPod } from '../../../shared/core/manifests/pod-manifest';
import type { ValidationError } from '../../../shared/core/model/errors';
import { isValidationError } from '../../../shared/core/model/errors';
import { containerManifest, podManifest, resources } from '../../../sim/world/builders';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function validationError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    if (isValidationError(e)) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('podFromManifest', () => {
  it('keeps what disruption and draining read: annotations, priority class, deletion, grace period', () => {
    const manifest = podManifest({ name: 'web' });
    const pod = podFromManifest({
      ...manifest,
      metadata: {
        ...manifest.metadata,
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        deletionTimestamp: '2026-01-01T00:00:00Z',
      },
      spec: {
        ...manifest.spec,
        priorityClassName: 'system-node-critical',
        terminationGracePeriodSeconds: 45,
      },
    });
    expect(pod).toMatchObject({
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      priorityClassName: 'system-node-critical',
      deleting: true,
      terminationGracePeriodSeconds: 45,
    });
    const plain = podFromManifest(podManifest({ name: 'plain' }));
    expect([
      plain.annotations,
      plain.priorityClassName,
      plain.deleting,
      plain.terminationGracePeriodSeconds,
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('applies defaults: namespace, uid, priority, pods: 1', () => {
    const manifest = podManifest({ name: 'web', requests: { cpu: '500m', memory: '1Gi' } });
    const { namespace: _, ...metadata } = manifest.metadata!;
    const pod = podFromManifest({ ...manifest, metadata });
    expect(pod).toMatchObject({
      namespace: 'default',
      name: 'web',
      uid: 'default/web',
      labels: {},
      requests: { cpu: 500, memory: GiB, pods: 1 },
      nodeSelector: {},
      preferredNodeAffinity: [],
      tolerations: [],
      topologySpread: [],
      podAffinity: [],
      podAntiAffinity: [],
      priority: 0,
    });
    expect(pod.requiredNodeAffinity).toBeUndefined();
    expect(pod.ownerKind).toBeUndefined();
    expect(pod.nodeName).toBeUndefined();
  });

  it('keeps metadata uid, labels, namespace, nodeName and priority', () => {
    const pod = podFromManifest(
      podManifest({
        name: 'web',
        namespace: 'shop',
        uid: '1b4e28ba-2fa1',
        labels: { app: 'web' },
        nodeName: 'node-a',
        priority: 1000,
      }),
    );
    expect(pod).toMatchObject({
      namespace: 'shop',
      uid: '1b4e28ba-2fa1',
      labels: { app: 'web' },
      nodeName: 'node-a',
      priority: 1000,
    });
  });

  it('takes ownerKind from the controller owner reference only', () => {
    expect(podFromManifest(podManifest({ ownerKind: 'ReplicaSet' })).ownerKind).toBe('ReplicaSet');
    const manifest = podManifest();
    const notController = {
      ...manifest,
      metadata: { ...manifest.metadata, ownerReferences: [{ kind: 'Foo', name: 'x', controller: false }] },
    };
    expect(podFromManifest(notController).ownerKind).toBeUndefined();
  });

  describe('effective requests', () => {
    it.each<[string, Parameters<typeof podManifest>[0], Record<string, string | number>]>([
      [
        'sums regular containers',
        {
          containers: [
            containerManifest({ requests: { cpu: '250m', memory: '64Mi' } }),
            containerManifest({ name: 'b', requests: { cpu: '750m', 'nvidia.com/gpu': 1 } }),
          ],
        },
        { cpu: '1', memory: '64Mi', 'nvidia.com/gpu': 1 },
      ],
      [
        'takes the larger init container per resource',
        {
          containers: [containerManifest({ requests: { cpu: '1', memory: '1Gi' } })],
          initContainers: [
            containerManifest({ name: 'migrate', requests: { cpu: '2', memory: '256Mi' } }),
            containerManifest({ name: 'warm', requests: { cpu: '500m', memory: '512Mi' } }),
          ],
        },
        { cpu: '2', memory: '1Gi' },
      ],
      [
        'adds sidecars to the regular containers',
        {
          containers: [containerManifest({ requests: { cpu: '1', memory: '1Gi' } })],
          initContainers: [
            containerManifest({
              name: 'proxy',
              restartPolicy: 'Always',
              requests: { cpu: '500m', memory: '128Mi' },
            }),
          ],
        },
        { cpu: '1500m', memory: '1152Mi' },
      ],
      [
        'counts sidecars started before an init container while it runs',
        {
          containers: [containerManifest({ requests: { cpu: '1' } })],
          initContainers: [
            containerManifest({ name: 'proxy', restartPolicy: 'Always', requests: { cpu: '500m' } }),
            containerManifest({ name: 'migrate', requests: { cpu: '1200m' } }),
          ],
        },
        { cpu: '1700m' },
      ],
      [
        'does not count sidecars declared after an init container',
        {
          containers: [containerManifest({ requests: { cpu: '1' } })],
          initContainers: [
            containerManifest({ name: 'migrate', requests: { cpu: '1200m' } }),
            containerManifest({ name: 'proxy', restartPolicy: 'Always', requests: { cpu: '500m' } }),
          ],
        },
        { cpu: '1500m' },
      ],
      [
        'adds the runtime class overhead',
        {
          requests: { cpu: '1', memory: '1Gi' },
          initContainers: [containerManifest({ name: 'init', requests: { cpu: '2' } })],
          overhead: { cpu: '250m', memory: '120Mi' },
        },
        { cpu: '2250m', memory: `${1024 + 120}Mi` },
      ],
      [
        'defaults a missing request to the limit, per resource',
        {
          containers: [
            containerManifest({ requests: { memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } }),
            containerManifest({ name: 'b', limits: { 'nvidia.com/gpu': 2 } }),
          ],
        },
        { cpu: '1', memory: '512Mi', 'nvidia.com/gpu': 2 },
      ],
      [
        'defaults init container requests to their limits too',
        {
          requests: { cpu: '100m' },
          initContainers: [containerManifest({ name: 'init', limits: { cpu: '3' } })],
        },
        { cpu: '3' },
      ],
      ['accepts bare YAML numbers', { requests: { cpu: 2, memory: 1048576 } }, { cpu: '2', memory: '1Mi' }],
      ['is pods: 1 for a pod that requests nothing', { containers: [containerManifest()] }, {}],
    ])('%s', (_, options, expected) => {
      expect(podFromManifest(podManifest(options)).requests).toEqual({ ...resources(expected), pods: 1 });
    });
  });

  it('normalises node affinity, pod affinity, tolerations and topology spread', () => {
    const pod = podFromManifest(
      podManifest({
        nodeSelector: { 'kubernetes.io/arch': 'arm64' },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
                  ],
                },
                {
                  matchExpressions: [
                    { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['4'] },
                  ],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 10,
                preference: {
                  matchExpressions: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
                },
              },
            ],
          },
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'topology.kubernetes.io/zone' },
            ],
          },
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' },
            ],
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 50,
                podAffinityTerm: {
                  labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
                  namespaces: ['shop'],
                  topologyKey: 'topology.kubernetes.io/zone',
                },
              },
            ],
          },
        },
        tolerations: [
          { operator: 'Exists' },
          { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule', tolerationSeconds: 30 },
          { key: 'spot', operator: 'Exists', effect: '' },
        ],
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: { app: 'web' } },
            minDomains: 3,
          },
        ],
      }),
    );
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/arch': 'arm64' });
    expect(pod.requiredNodeAffinity).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }] },
      { matchExpressions: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['4'] }] },
    ]);
    expect(pod.preferredNodeAffinity).toEqual([
      {
        weight: 10,
        preference: {
          matchExpressions: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
        },
      },
    ]);
    expect(pod.podAffinity).toEqual([
      { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'topology.kubernetes.io/zone' },
    ]);
    expect(pod.podAntiAffinity).toEqual([
      { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' },
    ]);
    expect(pod.preferredPodAntiAffinity).toEqual([
      {
        weight: 50,
        podAffinityTerm: {
          labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
          namespaces: ['shop'],
          topologyKey: 'topology.kubernetes.io/zone',
        },
      },
    ]);
    expect(pod.preferredPodAffinity).toEqual([]);
    expect(pod.tolerations).toEqual([
      { operator: 'Exists' },
      { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule', tolerationSeconds: 30 },
      { key: 'spot', operator: 'Exists' },
    ]);
    expect(pod.topologySpread).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'web' } },
        minDomains: 3,
      },
    ]);
  });

  it('treats YAML nulls as absent', () => {
    const manifest = podManifest({ name: 'web' });
    const pod = podFromManifest({
      ...manifest,
      metadata: { ...manifest.metadata, labels: null },
      spec: { ...manifest.spec, tolerations: null, nodeSelector: null, affinity: null, initContainers: null },
    });
    expect(pod.labels).toEqual({});
    expect(pod.tolerations).toEqual([]);
  });

  describe('errors', () => {
    it.each<[string, unknown, string, unknown]>([
      [
        'a bad cpu quantity',
        podManifest({ name: 'web', requests: { cpu: '1.2.3' } }),
        'spec.containers[0].resources.requests.cpu',
        '1.2.3',
      ],
      [
        'a negative memory limit',
        podManifest({
          name: 'web',
          containers: [containerManifest(), containerManifest({ limits: { memory: '-1Gi' } })],
        }),
        'spec.containers[1].resources.limits.memory',
        '-1Gi',
      ],
      [
        'a bad init container quantity',
        podManifest({ name: 'web', initContainers: [containerManifest({ requests: { memory: '1 Gi' } })] }),
        'spec.initContainers[0].resources.requests.memory',
        '1 Gi',
      ],
      [
        'a quantity on a resource name with dots',
        podManifest({ name: 'web', requests: { 'nvidia.com/gpu': 'one' } }),
        'spec.containers[0].resources.requests["nvidia.com/gpu"]',
        'one',
      ],
      ['no containers', podManifest({ name: 'web', containers: [] }), 'spec.containers', []],
      [
        'a non-string label',
        { ...podManifest({ name: 'web' }), metadata: { name: 'web', labels: { replicas: 3 } } },
        'metadata.labels.replicas',
        3,
      ],
      [
        'a label key with a dash, kept dotted',
        { ...podManifest({ name: 'web' }), metadata: { name: 'web', labels: { 'app-tier': 3 } } },
        'metadata.labels.app-tier',
        3,
      ],
      [
        'a label key with a prefix, in brackets',
        {
          ...podManifest({ name: 'web' }),
          metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 3 } },
        },
        'metadata.labels["app.kubernetes.io/name"]',
        3,
      ],
      [
        'an unknown node affinity operator',
        podManifest({
          name: 'web',
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Has', values: ['a'] }] }],
              },
            },
          },
        }),
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator',
        'Has',
      ],
      [
        'Gt with a non-integer value',
        podManifest({
          name: 'web',
          affinity: {
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 1,
                  preference: { matchExpressions: [{ key: 'cpu', operator: 'Gt', values: ['four'] }] },
                },
              ],
            },
          },
        }),
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values',
        ['four'],
      ],
      [
        'a preferred weight out of range',
        podManifest({
          name: 'web',
          affinity: {
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 101, preference: { matchExpressions: [] } },
              ],
            },
          },
        }),
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
        101,
      ],
      [
        'a toleration effect that does not exist',
        podManifest({ name: 'web', tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoScheduling' }] }),
        'spec.tolerations[0].effect',
        'NoScheduling',
      ],
      [
        'a toleration with an empty key and Equal',
        podManifest({ name: 'web', tolerations: [{ operator: 'Equal', value: 'x' }] }),
        'spec.tolerations[0].operator',
        'Equal',
      ],
      [
        'a toleration with Exists and a value',
        podManifest({ name: 'web', tolerations: [{ key: 'a', operator: 'Exists', value: 'x' }] }),
        'spec.tolerations[0].value',
        'x',
      ],
      [
        'a topology spread with maxSkew 0',
        podManifest({
          name: 'web',
          topologySpreadConstraints: [
            { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
          ],
        }),
        'spec.topologySpreadConstraints[0].maxSkew',
        0,
      ],
      ['a fractional priority', podManifest({ name: 'web', priority: 1.5 }), 'spec.priority', 1.5],
    ])('names the field and value of %s', (_, manifest, field, value) => {
      const error = validationError(() => podFromManifest(manifest));
      expect(error.issues).toContainEqual(expect.objectContaining({ field, value }));
      expect(error.location.object).toBe('Pod/web');
      expect(error.message).toContain(field);
      expect(error.message).toContain('Pod/web');
    });

    it('reports a missing name at metadata.name', () => {
      const error = validationError(() =>
        podFromManifest({ metadata: {}, spec: { containers: [{ name: 'a' }] } }),
      );
      expect(error.issues).toContainEqual(
        expect.objectContaining({ field: 'metadata.name', value: undefined }),
      );
      expect(error.location.object).toBe('Pod/(unnamed)');
      const noMetadata = validationError(() => podFromManifest({ spec: { containers: [{ name: 'a' }] } }));
      expect(noMetadata.issues[0].field).toBe('metadata');
    });

    it('rejects something that is not an object', () => {
      const error = validationError(() => podFromManifest('apiVersion: v1'));
      expect(error.issues[0].field).toBe('');
    });

    it('keeps the caller location and reports every bad field at once', () => {
      const manifest = podManifest({
        name: 'web',
        containers: [containerManifest({ requests: { cpu: 'lots', memory: 'Mi' } })],
      });
      const error = validationError(() =>
        podFromManifest(manifest, { source: 'pods.yaml', documentIndex: 2 }),
      );
      expect(error.location).toEqual({ source: 'pods.yaml', documentIndex: 2, object: 'Pod/web' });
      expect(error.issues.map((i) => i.field).sort()).toEqual([
        'spec.containers[0].resources.requests.cpu',
        'spec.containers[0].resources.requests.memory',
      ]);
      expect(error.message).toMatch(/^pods\.yaml, document 2, Pod\/web: /);
    });
  });
});

describe('podFromManifest with a PodSpecCache', () => {
  /** The pod, or the error message: what a caller can observe. */
  function outcome(fn: () => unknown): unknown {
    try {
      return fn();
    } catch (e) {
      if (isValidationError(e)) return e.message;
      throw e;
    }
  }

  // Values that JSON.stringify folds together (NaN and Infinity into null, -0 into 0, an
  // undefined property into none) or that differ only in type: a cache keyed loosely would
  // accept one because the other passed.
  const tricky = fc.constantFrom<unknown>(
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    0,
    1,
    '1',
    2.5,
  );

  it('gives every pod what a full check gives, in any order of specs seen before', () => {
    const manifest = fc.record({
      name: fc.constantFrom<unknown>('web-0', 'web-1', '', 7),
      labels: fc.constantFrom<unknown>(undefined, { app: 'web' }, { app: 1 }),
      priority: tricky,
      cpu: tricky,
      memory: fc.constantFrom<unknown>('1Gi', '1Gx', 1024),
      nodeSelector: fc.constantFrom<unknown>(undefined, null, { zone: 'a' }, { zone: 0 }),
    });
    fc.assert(
      fc.property(fc.array(manifest, { minLength: 1, maxLength: 12 }), (inputs) => {
        const cache = new PodSpecCache();
        for (const m of inputs) {
          const obj = {
            metadata: { name: m.name, labels: m.labels },
            spec: {
              priority: m.priority,
              nodeSelector: m.nodeSelector,
              containers: [{ name: 'app', resources: { requests: { cpu: m.cpu, memory: m.memory } } }],
            },
          };
          expect(outcome(() => podFromManifest(obj, {}, cache))).toEqual(outcome(() => podFromManifest(obj)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("validates a repeated spec once but still checks each pod's metadata", () => {
    const cache = new PodSpecCache();
    const spec = podManifest({ name: 'a', requests: { cpu: '1', memory: '1Gi' } }).spec;
    const a = podFromManifest({ metadata: { name: 'a' }, spec }, {}, cache);
    const b = podFromManifest(
      { metadata: { name: 'b', labels: { app: 'x' } }, spec: structuredClone(spec) },
      {},
      cache,
    );
    expect([a.name, b.name, b.labels, b.requests]).toEqual(['a', 'b', { app: 'x' }, a.requests]);
    const error = validationError(() =>
      podFromManifest({ metadata: { name: 'c', labels: { app: 3 } }, spec }, { source: 'pods.yaml' }, cache),
    );
    expect(error.message).toBe(
      validationError(() =>
        podFromManifest({ metadata: { name: 'c', labels: { app: 3 } }, spec }, { source: 'pods.yaml' }),
      ).message,
    );
    expect(error.issues.map((i) => i.field)).toEqual(['metadata.labels.app']);
  });
});

describe('podTemplateToPod', () => {
  const template = () => {
    const { metadata, spec } = podManifest({
      labels: { app: 'agent' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
    return { metadata: { labels: metadata!.labels }, spec };
  };

  it('builds the pod a workload would create', () => {
    const pod = podTemplateToPod(template(), {
      namespace: 'kube-system',
      name: 'agent',
      ownerKind: 'DaemonSet',
    });
    expect(pod).toMatchObject({
      namespace: 'kube-system',
      name: 'agent',
      uid: 'kube-system/agent',
      labels: { app: 'agent' },
      requests: { cpu: 100, memory: 128 * MiB, pods: 1 },
      ownerKind: 'DaemonSet',
    });
  });

  it('defaults the namespace', () => {
    expect(podTemplateToPod(template(), { name: 'agent' }).namespace).toBe('default');
  });

  it('reports fields under spec.template of the workload', () => {
    const bad = { spec: { containers: [{ name: 'a', resources: { requests: { cpu: 'x' } } }] } };
    const error = validationError(() =>
      podTemplateToPod(bad, { name: 'web', ownerKind: 'Deployment', location: { source: 'web.yaml' } }),
    );
    expect(error.issues[0]).toMatchObject({
      field: 'spec.template.spec.containers[0].resources.requests.cpu',
      value: 'x',
    });
    expect(error.location).toEqual({ source: 'web.yaml', object: 'Deployment/web' });
  });

  it('honours a custom field prefix (CronJob templates)', () => {
    const error = validationError(() =>
      podTemplateToPod(
        { spec: {} },
        { name: 'nightly', ownerKind: 'CronJob', fieldPrefix: 'spec.jobTemplate.spec.template' },
      ),
    );
    expect(error.issues[0].field).toBe('spec.jobTemplate.spec.template.spec.containers');
  });
});
