import { describe, expect, it } from 'vitest';
import { readPlanInput } from '../../cli/plan-input';
import { ValidationError } from '../../shared/core/model/errors';
import { list, node, nodeClass, nodePool, pod, withDefaultPool, workload, yamlStream } from './fixtures';

const FILE = 'cluster.yaml';

function read(text: string) {
  return readPlanInput(text, FILE);
}

function podNames(input: ReturnType<typeof read>): string[] {
  return input.pods.map((p) => `${p.namespace}/${p.name}`);
}

/** The ValidationError `fn` throws. */
function validationError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('readPlanInput', () => {
  it('reads every kind it plans with', () => {
    const input = read(
      yamlStream(
        nodePool('default'),
        nodeClass('default'),
        pod('solo', { namespace: 'team-a' }),
        workload('Deployment', 'web', { replicas: 2 }),
        workload('ReplicaSet', 'rs', { replicas: 1 }),
        workload('StatefulSet', 'db', { replicas: 2 }),
        workload('Job', 'batch', { parallelism: 1 }),
        workload('DaemonSet', 'agent', {}, { namespace: 'kube-system', cpu: '100m' }),
        node('ip-10-0-0-1'),
        pod('running', { nodeName: 'ip-10-0-0-1' }),
      ),
    );
    expect(input.nodePools.map((p) => p.name)).toEqual(['default']);
    expect(input.nodeClasses.map((c) => c.name)).toEqual(['default']);
    expect(podNames(input)).toEqual([
      'team-a/solo',
      'default/web-0',
      'default/web-1',
      'default/rs-0',
      'default/db-0',
      'default/db-1',
      'default/batch-0',
    ]);
    expect(input.daemonSets.map((d) => [d.namespace, d.name, d.pod.requests.cpu])).toEqual([
      ['kube-system', 'agent', 100],
    ]);
    expect(input.nodes.map((n) => [n.name, n.pods.map((p) => p.name)])).toEqual([
      ['ip-10-0-0-1', ['running']],
    ]);
    expect(input.warnings).toEqual([]);
  });

  it('flattens kind: List, nested Lists included, and ignores empty documents', () => {
    const input = read(
      `---\n${yamlStream(list(nodePool(), list(nodeClass(), pod('a'))), null, pod('b'))}---\n# only a comment\n`,
    );
    expect(input.nodePools).toHaveLength(1);
    expect(input.nodeClasses).toHaveLength(1);
    expect(podNames(input)).toEqual(['default/a', 'default/b']);
  });

  it('reads API list kinds such as PodList', () => {
    const input = read(yamlStream({ apiVersion: 'v1', kind: 'PodList', items: [pod('a'), pod('b')] }));
    expect(podNames(input)).toEqual(['default/a', 'default/b']);
  });

  describe('workload expansion', () => {
    it('names replicas <controller>-<i> from 0 in the workload namespace', () => {
      const input = read(
        yamlStream(workload('Deployment', 'web', { replicas: 3 }, { namespace: 'shop', cpu: '250m' })),
      );
      expect(podNames(input)).toEqual(['shop/web-0', 'shop/web-1', 'shop/web-2']);
      expect(input.pods.map((p) => p.uid)).toEqual(['shop/web-0', 'shop/web-1', 'shop/web-2']);
      expect(input.pods.every((p) => p.requests.cpu === 250 && p.labels.app === 'web')).toBe(true);
      expect(input.pods[0].ownerKind).toBe('ReplicaSet');
    });

    it('defaults replicas to 1 and plans nothing for replicas 0', () => {
      const input = read(
        yamlStream(workload('Deployment', 'one'), workload('StatefulSet', 'none', { replicas: 0 })),
      );
      expect(podNames(input)).toEqual(['default/one-0']);
    });

    it('gives StatefulSet pods their pod-name and pod-index labels', () => {
      const [, second] = read(yamlStream(workload('StatefulSet', 'db', { replicas: 2 }))).pods;
      expect(second.labels).toMatchObject({
        app: 'db',
        'statefulset.kubernetes.io/pod-name': 'db-1',
        'apps.kubernetes.io/pod-index': '1',
      });
      expect(second.ownerKind).toBe('StatefulSet');
    });

    it.each([
      [{}, 1],
      [{ parallelism: 5 }, 5],
      [{ parallelism: 5, completions: 2 }, 2],
      [{ parallelism: 2, completions: 10 }, 2],
      [{ completions: 3 }, 1],
      [{ parallelism: 4, suspend: true }, 0],
    ])('runs Job %j as %i pods', (spec, pods) => {
      expect(read(yamlStream(workload('Job', 'batch', spec))).pods).toHaveLength(pods);
    });
  });

  it('defaults the namespace to default', () => {
    const input = read(yamlStream(pod('a'), workload('DaemonSet', 'agent')));
    expect(input.pods[0].namespace).toBe('default');
    expect(input.daemonSets[0].namespace).toBe('default');
  });

  it('attaches bound pods to their Node, wherever the Node appears, and keeps them out of the pending pods', () => {
    const input = read(
      yamlStream(
        pod('early', { nodeName: 'n1', cpu: 1 }),
        node('n1'),
        pod('late', { nodeName: 'n1' }),
        pod('pending'),
      ),
    );
    expect(podNames(input)).toEqual(['default/pending']);
    expect(input.nodes).toHaveLength(1);
    expect(input.nodes[0].pods.map((p) => p.name)).toEqual(['early', 'late']);
    expect(input.nodes[0].allocatable.cpu).toBe(3920);
  });

  it('ignores finished pods, saying how many', () => {
    const input = read(
      yamlStream(pod('done', { phase: 'Succeeded', nodeName: 'gone' }), pod('failed', { phase: 'Failed' })),
    );
    expect(input.pods).toEqual([]);
    expect(input.warnings).toEqual([
      `${FILE}: ignoring 2 finished pod(s) (status.phase Succeeded or Failed)`,
    ]);
  });

  it('skips kinds it does not use with a warning naming file, document and object', () => {
    const input = read(
      withDefaultPool(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'foo' }, data: {} },
        list({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' } }),
      ),
    );
    expect(input.warnings).toEqual([
      `${FILE} document 2: skipping ConfigMap/foo: podlift plan does not use this kind`,
      `${FILE} document 3: skipping Service/shop/web (List item 0): podlift plan does not use this kind`,
    ]);
  });

  it('sums up skipped objects beyond the first 20 in one line', () => {
    const configMaps = Array.from({ length: 25 }, (_, i) => ({
      kind: 'ConfigMap',
      metadata: { name: `c${i}` },
    }));
    const input = read(yamlStream(list(...configMaps)));
    expect(input.warnings).toHaveLength(21);
    expect(input.warnings[20]).toBe(
      `${FILE}: skipping 5 more objects podlift plan does not use (ConfigMap: 5)`,
    );
  });

  it('keeps a NodePool whose EC2NodeClass is missing, with a warning', () => {
    const input = read(yamlStream(nodePool('orphan', { nodeClass: 'nope' })));
    expect(input.nodePools.map((p) => p.name)).toEqual(['orphan']);
    expect(input.warnings).toEqual([
      `${FILE} document 0: NodePool/orphan: spec.template.spec.nodeClassRef names EC2NodeClass "nope", which is not in the input; this NodePool can launch no nodes`,
    ]);
  });

  it('warns about what an EC2NodeClass sets that podlift accepts without honouring it', () => {
    const nested = nodeClass();
    (nested.spec as Record<string, unknown>).cpuOptions = { nestedVirtualization: 'enabled' };
    const input = read(yamlStream(nodePool('default'), nested));
    expect(input.warnings).toEqual([
      `${FILE} document 1: EC2NodeClass/default: spec.cpuOptions.nestedVirtualization is applied to the launch template, but instance types are not limited to those supporting nested virtualization as Karpenter does: another type fails at launch`,
    ]);
  });

  it("names another controller's NodePool and a static NodePool, which take no pending pods", () => {
    const autoMode = nodePool('auto');
    const spec = autoMode.spec as { template: { spec: Record<string, unknown> }; replicas?: number };
    spec.template.spec.nodeClassRef = { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' };
    const fixed = nodePool('fixed');
    (fixed.spec as { replicas?: number }).replicas = 3;
    const input = read(yamlStream(autoMode, fixed, nodeClass()));
    expect(input.warnings).toEqual([
      `${FILE} document 0: NodePool/auto: spec.template.spec.nodeClassRef is eks.amazonaws.com/NodeClass, not karpenter.k8s.aws/EC2NodeClass: another controller's NodePool (e.g. EKS Auto Mode), skipped`,
      `${FILE} document 1: NodePool/fixed: spec.replicas is 3: a static NodePool keeps that many nodes and takes no pending pods`,
    ]);
  });

  it('reads YAML as Kubernetes does: unquoted dates stay strings, merge keys merge', () => {
    const input = read(
      [
        'kind: Pod',
        'metadata:',
        '  name: a',
        '  labels: &labels {app: web, released: 2024-01-01}',
        'spec:',
        '  nodeSelector:',
        '    <<: *labels',
        '    tier: front',
        '  containers: [{name: app, image: pause}]',
      ].join('\n'),
    );
    expect(input.pods[0].labels.released).toBe('2024-01-01');
    expect(input.pods[0].nodeSelector).toEqual({ app: 'web', released: '2024-01-01', tier: 'front' });
  });

  describe('errors', () => {
    // Each names the file, the document, the object (Kind/name), the field and the bad value.
    it.each([
      {
        what: 'YAML syntax',
        text: 'kind: Pod\nmetadata:\n  name: a\n   bad: indent\n',
        // The `yaml` package places the fault where the mapping became a compact one.
        parts: [FILE, 'line 3, column 9', 'not valid YAML', '(got "  name: a")'],
      },
      {
        what: 'a document that is not an object',
        text: `${yamlStream(pod('a'))}---\n- just\n- a list\n`,
        parts: [FILE, 'document 1', '(document)', 'expected a Kubernetes object', '["just","a list"]'],
      },
      {
        what: 'a missing kind',
        text: yamlStream({ metadata: { name: 'x' } }),
        parts: [FILE, 'document 0', 'kind: must be a non-empty string', 'got nothing'],
      },
      {
        what: 'a bad NodePool field',
        text: yamlStream(
          nodePool('default', {
            requirements: [{ key: 'kubernetes.io/arch', operator: 'Maybe', values: ['amd64'] }],
          }),
        ),
        parts: [
          FILE,
          'document 0',
          'NodePool/default',
          'spec.template.spec.requirements[0].operator',
          '"Maybe"',
        ],
      },
      {
        what: 'a bad EC2NodeClass field',
        text: yamlStream(nodePool(), { ...nodeClass(), spec: { ...(nodeClass().spec as object), role: 42 } }),
        parts: [FILE, 'document 1', 'EC2NodeClass/default', 'spec.role', '42'],
      },
      {
        what: 'a bad Pod quantity',
        text: withDefaultPool(pod('hungry', { cpu: 'lots' })),
        parts: [FILE, 'document 2', 'Pod/hungry', 'spec.containers[0].resources.requests.cpu', '"lots"'],
      },
      {
        what: 'a bad quantity in a workload template',
        text: withDefaultPool(workload('Deployment', 'web', { replicas: 2 }, { memory: 'big' })),
        parts: [
          FILE,
          'document 2',
          'Deployment/web',
          'spec.template.spec.containers[0].resources.requests.memory',
          '"big"',
        ],
      },
      {
        what: 'bad replicas',
        text: withDefaultPool(workload('Deployment', 'web', { replicas: 'three' })),
        parts: [FILE, 'document 2', 'Deployment/web', 'spec.replicas', 'non-negative integer', '"three"'],
      },
      {
        what: 'bad Job parallelism',
        text: withDefaultPool(workload('Job', 'batch', { parallelism: -1 })),
        parts: [FILE, 'document 2', 'Job/batch', 'spec.parallelism', '-1'],
      },
      {
        what: 'a workload without a template',
        text: yamlStream({
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'db' },
          spec: { replicas: 1 },
        }),
        parts: [FILE, 'document 0', 'StatefulSet/db', 'spec.template', 'is required'],
      },
      {
        what: 'a bad object inside a List',
        text: yamlStream(list(pod('fine'), list(pod('bad', { cpu: '-1' })))),
        parts: [
          FILE,
          'document 0',
          'Pod/bad (List item 1.0)',
          'spec.containers[0].resources.requests.cpu',
          '"-1"',
        ],
      },
      {
        what: 'a duplicate NodePool',
        text: yamlStream(nodePool('default'), nodeClass(), nodePool('default')),
        parts: [FILE, 'document 2', 'NodePool/default', 'metadata.name', 'duplicate NodePool', 'document 0'],
      },
      {
        what: 'a duplicate EC2NodeClass',
        text: yamlStream(nodeClass('default'), nodeClass('default')),
        parts: [FILE, 'document 1', 'EC2NodeClass/default', 'duplicate EC2NodeClass', 'document 0'],
      },
      {
        what: 'a Pod that duplicates a replica',
        text: withDefaultPool(workload('Deployment', 'web', { replicas: 2 }), pod('web-1')),
        parts: [
          FILE,
          'document 3',
          'Pod/web-1',
          'duplicate Pod',
          '"default/web-1"',
          'document 2 (Deployment/web)',
        ],
      },
      {
        what: 'a duplicate Node',
        text: yamlStream(node('n1'), node('n1')),
        parts: [FILE, 'document 1', 'Node/n1', 'duplicate Node'],
      },
      {
        what: 'a duplicate DaemonSet',
        text: yamlStream(workload('DaemonSet', 'agent'), workload('DaemonSet', 'agent')),
        parts: [FILE, 'document 1', 'DaemonSet/agent', 'duplicate DaemonSet'],
      },
      {
        what: 'a bad Node',
        text: yamlStream({ ...node('n1'), status: { allocatable: { cpu: 'many' } } }),
        parts: [FILE, 'document 0', 'Node/n1', 'status.allocatable.cpu', '"many"'],
      },
      {
        what: 'a pod bound to an unknown Node',
        text: withDefaultPool(node('n1'), pod('lost', { nodeName: 'n2' })),
        parts: [FILE, 'document 3', 'Pod/lost', 'spec.nodeName', 'names no Node in the input', '"n2"'],
      },
    ])('reports $what with file, document, object, field and value', ({ text, parts }) => {
      const error = validationError(() => read(text));
      for (const part of parts) expect(error.message).toContain(part);
      expect(error.location.source).toBe(FILE);
    });
  });
});
