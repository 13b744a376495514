import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseNodePool } from '../../../shared/core/manifests/nodepool-schema';
import { isValidationError, type ValidationError } from '../../../shared/core/model/errors';

/** The NodePool from Karpenter's documentation (concepts/nodepools), every field set. */
const DOCS_NODEPOOL = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    metadata:
      labels:
        billing-team: my-team
      annotations:
        example.com/owner: "my-team"
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      taints:
        - key: example.com/special-taint
          effect: NoSchedule
      startupTaints:
        - key: example.com/another-taint
          effect: NoSchedule
      expireAfter: 720h
      terminationGracePeriod: 48h
      requirements:
        - key: "karpenter.k8s.aws/instance-category"
          operator: In
          values: ["c", "m", "r"]
          minValues: 2
        - key: "karpenter.k8s.aws/instance-family"
          operator: In
          values: ["m5","m5d","c5","c5d","c4","r4"]
          minValues: 5
        - key: "karpenter.k8s.aws/instance-cpu"
          operator: In
          values: ["4", "8", "16", "32"]
        - key: "karpenter.k8s.aws/instance-hypervisor"
          operator: In
          values: ["nitro"]
        - key: "karpenter.k8s.aws/instance-generation"
          operator: Gt
          values: ["2"]
        - key: "topology.kubernetes.io/zone"
          operator: In
          values: ["us-west-2a", "us-west-2b"]
        - key: "kubernetes.io/arch"
          operator: In
          values: ["arm64", "amd64"]
        - key: "karpenter.sh/capacity-type"
          operator: In
          values: ["spot", "on-demand", "reserved"]
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets:
    - nodes: "20%"
      reasons:
      - "Empty"
      - "Drifted"
    - nodes: "5"
    - nodes: "0"
      schedule: "@daily"
      duration: 10m
      reasons:
      - "Underutilized"
  limits:
    cpu: "1000"
    memory: 1000Gi
  weight: 10
status:
  resources:
    cpu: "4"
`;

/** The smallest NodePool Karpenter accepts. */
const MINIMAL_NODEPOOL = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: minimal
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements: []
`;

// biome-ignore lint/suspicious/noExplicitAny: tests edit arbitrary parsed YAML in place.
type Doc = Record<string, any>;

/** The docs NodePool, changed by `edit`. */
function nodePoolDoc(edit: (doc: Doc) => void = () => {}, base = DOCS_NODEPOOL): Doc {
  const doc = parse(base) as Doc;
  edit(doc);
  return doc;
}

function validationError(doc: unknown): ValidationError {
  try {
    parseNodePool(doc, { source: 'nodepools.yaml', documentIndex: 1 });
  } catch (e) {
    if (isValidationError(e)) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

/** Asserts the edit is rejected with an issue at `field` whose message names `value`. */
function expectRejected(
  edit: (doc: Doc) => void,
  field: string,
  messagePart?: string | RegExp,
): ValidationError {
  const err = validationError(nodePoolDoc(edit));
  const issue = err.issues.find((i) => i.field === field);
  expect(issue, `issues: ${err.message}`).toBeDefined();
  expect(err.message).toContain(`${field}: `);
  if (issue?.value !== undefined) expect(err.message).toContain(JSON.stringify(issue.value).slice(0, 100));
  if (messagePart !== undefined) expect(issue?.message).toMatch(messagePart);
  return err;
}

describe('parseNodePool', () => {
  it('parses the Karpenter documentation example field for field', () => {
    const np = parseNodePool(nodePoolDoc());
    expect(np.name).toBe('default');
    expect(np.template.labels).toEqual({ 'billing-team': 'my-team' });
    expect(np.template.annotations).toEqual({ 'example.com/owner': 'my-team' });
    expect(np.template.nodeClassRef).toEqual({
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'default',
    });
    expect(np.template.taints).toEqual([{ key: 'example.com/special-taint', effect: 'NoSchedule' }]);
    expect(np.template.startupTaints).toEqual([{ key: 'example.com/another-taint', effect: 'NoSchedule' }]);
    expect(np.template.expireAfter).toBe('720h');
    expect(np.template.terminationGracePeriod).toBe('48h');
    expect(np.template.requirements).toHaveLength(8);
    expect(np.template.requirements[0]).toEqual({
      key: 'karpenter.k8s.aws/instance-category',
      operator: 'In',
      values: ['c', 'm', 'r'],
      minValues: 2,
    });
    expect(np.template.requirements[4]).toEqual({
      key: 'karpenter.k8s.aws/instance-generation',
      operator: 'Gt',
      values: ['2'],
    });
    expect(np.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '1m',
      budgets: [
        { nodes: '20%', reasons: ['Empty', 'Drifted'] },
        { nodes: '5' },
        { nodes: '0', schedule: '@daily', duration: '10m', reasons: ['Underutilized'] },
      ],
    });
    expect(np.limits).toEqual({ cpu: 1_000_000, memory: 1000 * 2 ** 30 });
    expect(np.weight).toBe(10);
    expect(np.replicas).toBeUndefined();
  });

  it("applies Karpenter's defaults to a minimal NodePool", () => {
    const np = parseNodePool(parse(MINIMAL_NODEPOOL));
    expect(np.template.expireAfter).toBe('720h');
    expect(np.template.terminationGracePeriod).toBeUndefined();
    expect(np.template.labels).toEqual({});
    expect(np.template.taints).toEqual([]);
    expect(np.template.startupTaints).toEqual([]);
    expect(np.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '0s',
      budgets: [{ nodes: '10%' }],
    });
    expect(np.limits).toEqual({});
    expect(np.weight).toBe(0);
    expect(np.labels).toEqual({});
    expect(np.annotations).toEqual({});
  });

  it('defaults the policy, the budgets and a budget without nodes', () => {
    const np = parseNodePool(
      nodePoolDoc((d) => {
        d.spec.disruption = {
          consolidateAfter: 'Never',
          budgets: [{ schedule: '0 9 * * mon-fri', duration: '8h' }],
        };
      }),
    );
    expect(np.disruption.consolidationPolicy).toBe('WhenEmptyOrUnderutilized');
    expect(np.disruption.budgets).toEqual([{ nodes: '10%', schedule: '0 9 * * mon-fri', duration: '8h' }]);
  });

  it('converts limits to canonical units, accepting YAML numbers and extended resources', () => {
    const np = parseNodePool(
      nodePoolDoc((d) => {
        d.spec.limits = {
          cpu: 100,
          memory: '64Gi',
          'nvidia.com/gpu': 8,
          nodes: '20',
          'ephemeral-storage': '1T',
        };
      }),
    );
    expect(np.limits).toEqual({
      cpu: 100_000,
      memory: 64 * 2 ** 30,
      'nvidia.com/gpu': 8,
      nodes: 20,
      'ephemeral-storage': 1e12,
    });
  });

  it('accepts a static NodePool with replicas and a nodes limit', () => {
    const np = parseNodePool(
      nodePoolDoc((d) => {
        d.spec.replicas = 3;
        d.spec.limits = { nodes: 5 };
        delete d.spec.weight;
      }),
    );
    expect(np.replicas).toBe(3);
    expect(np.limits).toEqual({ nodes: 5 });
    expect(np.weight).toBe(0);
  });

  it('accepts Exists, DoesNotExist, NotIn, Gte and Lte requirements and allowed label domains', () => {
    const np = parseNodePool(
      nodePoolDoc((d) => {
        d.spec.template.spec.requirements = [
          { key: 'example.com/gpu', operator: 'Exists' },
          { key: 'example.com/no-gpu', operator: 'DoesNotExist' },
          { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['t3.nano'] },
          { key: 'karpenter.k8s.aws/instance-memory', operator: 'Gte', values: ['2048'] },
          { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['64'] },
          { key: 'kops.k8s.io/instancegroup', operator: 'In', values: ['nodes'] },
          { key: 'node-restriction.kubernetes.io/team', operator: 'In', values: ['a'] },
        ];
      }),
    );
    expect(np.template.requirements.map((r) => r.operator)).toEqual([
      'Exists',
      'DoesNotExist',
      'NotIn',
      'Gte',
      'Lte',
      'In',
      'In',
    ]);
  });

  it('accepts kubernetes.io and k8s.io template labels and requirement keys, as Karpenter v1.9+ does', () => {
    const np = parseNodePool(
      nodePoolDoc((d) => {
        d.spec.template.metadata = {
          labels: { 'node-role.kubernetes.io/worker': 'true', 'example.k8s.io/tier': 'web' },
        };
        d.spec.template.spec.requirements = [
          { key: 'kubernetes.io/role', operator: 'In', values: ['node'] },
          { key: 'example.k8s.io/tier', operator: 'In', values: ['web'] },
        ];
      }),
    );
    expect(np.template.labels).toEqual({
      'node-role.kubernetes.io/worker': 'true',
      'example.k8s.io/tier': 'web',
    });
    expect(np.template.requirements.map((r) => r.key)).toEqual(['kubernetes.io/role', 'example.k8s.io/tier']);
  });

  it('accepts the karpenter.k8s.aws/instance-tenancy requirement of Karpenter v1.14', () => {
    const np = parseNodePool(
      nodePoolDoc((d) => {
        d.spec.template.spec.requirements = [
          { key: 'karpenter.k8s.aws/instance-tenancy', operator: 'In', values: ['dedicated'] },
        ];
      }),
    );
    expect(np.template.requirements).toEqual([
      { key: 'karpenter.k8s.aws/instance-tenancy', operator: 'In', values: ['dedicated'] },
    ]);
  });

  it('reads the global consolidation threshold k from podlift.dev/global-consolidation-k, 1 to 10', () => {
    const withK = (k?: string) =>
      nodePoolDoc((d) => {
        if (k !== undefined) d.metadata.annotations = { 'podlift.dev/global-consolidation-k': k };
      });
    expect(parseNodePool(withK()).disruption.globalConsolidationK).toBeUndefined();
    expect(parseNodePool(withK('1')).disruption.globalConsolidationK).toBe(1);
    expect(parseNodePool(withK('10')).disruption.globalConsolidationK).toBe(10);
    for (const bad of ['0', '11', '2.5', 'three', '', ' 3', '03']) {
      const err = validationError(withK(bad));
      const issue = err.issues.find(
        (i) => i.field === 'metadata.annotations["podlift.dev/global-consolidation-k"]',
      );
      expect(issue?.message, bad).toMatch(/integer from 1 to 10/);
      expect(err.message).toContain(JSON.stringify(bad));
    }
  });

  it('reads how long a NodePool must be settled from podlift.dev/global-consolidation-settle-after', () => {
    const withSettle = (settle?: string) =>
      nodePoolDoc((d) => {
        if (settle !== undefined)
          d.metadata.annotations = { 'podlift.dev/global-consolidation-settle-after': settle };
      });
    expect(parseNodePool(withSettle()).disruption.globalConsolidationSettleAfter).toBeUndefined();
    expect(parseNodePool(withSettle('0s')).disruption.globalConsolidationSettleAfter).toBe('0s');
    expect(parseNodePool(withSettle('1h30m')).disruption.globalConsolidationSettleAfter).toBe('1h30m');
    for (const bad of ['3', '3 m', '-1m', '1.5m', 'Never', '', 'soon']) {
      const err = validationError(withSettle(bad));
      const issue = err.issues.find(
        (i) => i.field === 'metadata.annotations["podlift.dev/global-consolidation-settle-after"]',
      );
      expect(issue?.message, bad).toMatch(/must be a duration in hours, minutes and seconds/);
      expect(err.message).toContain(JSON.stringify(bad));
    }
  });

  it('reads the launch price band from podlift.dev/launch-price-band, 0% to 1000%', () => {
    const withBand = (band?: string) =>
      nodePoolDoc((d) => {
        if (band !== undefined) d.metadata.annotations = { 'podlift.dev/launch-price-band': band };
      });
    expect(parseNodePool(withBand()).launchPriceBand).toBeUndefined();
    expect(parseNodePool(withBand('0%')).launchPriceBand).toBe(0);
    expect(parseNodePool(withBand('25%')).launchPriceBand).toBe(0.25);
    expect(parseNodePool(withBand('1000%')).launchPriceBand).toBe(10);
    for (const bad of ['25', '0.25', '-5%', '1001%', '2.5%', '025%', ' 25%', '', 'wide']) {
      const err = validationError(withBand(bad));
      const issue = err.issues.find(
        (i) => i.field === 'metadata.annotations["podlift.dev/launch-price-band"]',
      );
      expect(issue?.message, bad).toMatch(/whole percentage from 0% to 1000%/);
      expect(err.message).toContain(JSON.stringify(bad));
    }
  });

  it('names the file, document and NodePool in errors', () => {
    const err = validationError(nodePoolDoc((d) => (d.spec.weight = 0)));
    expect(err.location).toEqual({ source: 'nodepools.yaml', documentIndex: 1, object: 'NodePool/default' });
    expect(err.message).toMatch(/^nodepools\.yaml, document 1, NodePool\/default: spec\.weight: /);
  });

  it('names the object even when the body is not valid', () => {
    const err = validationError({ kind: 'NodePool', metadata: { name: 'broken' }, spec: 'nope' });
    expect(err.location.object).toBe('NodePool/broken');
    expect(err.issues.map((i) => i.field)).toEqual(expect.arrayContaining(['apiVersion', 'spec']));
  });

  it('reports every independent issue at once', () => {
    const err = validationError(
      nodePoolDoc((d) => {
        d.spec.weight = 1000;
        d.spec.template.spec.requirements[2].operator = 'Within';
        d.spec.disruption.consolidationPolicy = 'WhenUnderutilized';
      }),
    );
    expect(err.issues.map((i) => i.field)).toEqual(
      expect.arrayContaining([
        'spec.weight',
        'spec.template.spec.requirements[2].operator',
        'spec.disruption.consolidationPolicy',
      ]),
    );
  });

  it('rejects a value that is not an object', () => {
    expect(validationError('apiVersion: karpenter.sh/v1').issues[0].message).toMatch(/must be an object/);
  });

  describe('rejects, with the field and the bad value', () => {
    it('an apiVersion other than karpenter.sh/v1, pointing v1beta1 users at the migration', () => {
      expectRejected((d) => (d.apiVersion = 'karpenter.sh/v1beta1'), 'apiVersion', /migrate/);
      expectRejected((d) => (d.apiVersion = 'karpenter.sh/v2'), 'apiVersion', /karpenter\.sh\/v1/);
    });

    it('another kind', () => expectRejected((d) => (d.kind = 'Provisioner'), 'kind'));

    it('a missing or invalid name', () => {
      expectRejected((d) => delete d.metadata.name, 'metadata.name', /required/);
      expectRejected((d) => (d.metadata.name = 'Default_Pool'), 'metadata.name', /DNS-1123/);
    });

    it('unknown fields, naming each one', () => {
      const err = expectRejected(
        (d) => (d.spec.disruption.consolidateafter = '1m'),
        'spec.disruption.consolidateafter',
        /unknown field "consolidateafter"/,
      );
      expect(err.issues).toHaveLength(1);
      expectRejected(
        (d) => (d.spec.template.spec.kubelet = { maxPods: 10 }),
        'spec.template.spec.kubelet',
        /unknown field/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].value = 'c'),
        'spec.template.spec.requirements[0].value',
      );
      expectRejected((d) => (d.spec.provider = {}), 'spec.provider');
      expectRejected((d) => (d.extra = true), 'extra');
    });

    it('a missing template, nodeClassRef or requirements', () => {
      expectRejected((d) => delete d.spec.template, 'spec.template', /required/);
      expectRejected((d) => delete d.spec.template.spec.nodeClassRef, 'spec.template.spec.nodeClassRef');
      expectRejected((d) => delete d.spec.template.spec.requirements, 'spec.template.spec.requirements');
    });

    it('nodeClassRef without group, kind or name, or with empty ones', () => {
      expectRejected(
        (d) => delete d.spec.template.spec.nodeClassRef.group,
        'spec.template.spec.nodeClassRef.group',
      );
      expectRejected(
        (d) => (d.spec.template.spec.nodeClassRef.kind = ''),
        'spec.template.spec.nodeClassRef.kind',
        /kind may not be empty/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.nodeClassRef.name = ''),
        'spec.template.spec.nodeClassRef.name',
        /name may not be empty/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.nodeClassRef.group = 'karpenter.k8s.aws/v1'),
        'spec.template.spec.nodeClassRef.group',
      );
    });

    it('an unknown requirement operator', () => {
      expectRejected(
        (d) => (d.spec.template.spec.requirements[2].operator = 'Within'),
        'spec.template.spec.requirements[2].operator',
      );
    });

    it('In without values', () => {
      expectRejected(
        (d) => (d.spec.template.spec.requirements[3].values = []),
        'spec.template.spec.requirements[3].values',
        /operator 'In' must have a value defined/,
      );
      expectRejected(
        (d) => delete d.spec.template.spec.requirements[3].values,
        'spec.template.spec.requirements[3].values',
      );
    });

    it('Gt, Lt, Gte or Lte without exactly one non-negative integer', () => {
      const req = 'spec.template.spec.requirements[4].values';
      expectRejected(
        (d) => (d.spec.template.spec.requirements[4].values = ['2', '3']),
        req,
        /single positive integer/,
      );
      expectRejected((d) => (d.spec.template.spec.requirements[4].values = ['two']), req);
      expectRejected((d) => (d.spec.template.spec.requirements[4].values = ['-1']), req);
      expectRejected((d) => (d.spec.template.spec.requirements[4] = { key: 'a', operator: 'Lt' }), req);
      expectRejected(
        (d) => (d.spec.template.spec.requirements[4] = { key: 'a', operator: 'Gte', values: ['1.5'] }),
        req,
      );
    });

    it('minValues outside 1..50 or above the number of In values', () => {
      const field = 'spec.template.spec.requirements[0].minValues';
      expectRejected((d) => (d.spec.template.spec.requirements[0].minValues = 0), field);
      expectRejected((d) => (d.spec.template.spec.requirements[0].minValues = 51), field);
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].minValues = 4),
        field,
        /at least that many values/,
      );
    });

    it('requirement keys that are not qualified names', () => {
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].key = 'Example.com/x'),
        'spec.template.spec.requirements[0].key',
        /qualified name/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].key = `a/${'x'.repeat(64)}`),
        'spec.template.spec.requirements[0].key',
        /63/,
      );
    });

    it('requirement values that are not label values', () => {
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].values = ['c', 'm/5']),
        'spec.template.spec.requirements[0].values[1]',
      );
    });

    it('requirement keys in restricted label domains', () => {
      const field = 'spec.template.spec.requirements[0].key';
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].key = 'kubernetes.io/hostname'),
        field,
        /"kubernetes.io\/hostname" is restricted/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].key = 'karpenter.sh/nodepool'),
        field,
        /"karpenter.sh\/nodepool" is restricted/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].key = 'karpenter.sh/custom'),
        field,
        /"karpenter.sh" is restricted/,
      );
      expectRejected(
        (d) => (d.spec.template.spec.requirements[0].key = 'karpenter.k8s.aws/custom'),
        field,
        /"karpenter.k8s.aws" is restricted/,
      );
    });

    it('more than 100 requirements', () => {
      expectRejected(
        (d) =>
          (d.spec.template.spec.requirements = Array.from({ length: 101 }, (_, i) => ({
            key: `example.com/k${i}`,
            operator: 'Exists',
          }))),
        'spec.template.spec.requirements',
        /at most 100/,
      );
    });

    it('template labels in restricted domains or with bad values', () => {
      expectRejected(
        (d) => (d.spec.template.metadata.labels['karpenter.sh/nodepool'] = 'x'),
        'spec.template.metadata.labels["karpenter.sh/nodepool"]',
        /restricted/,
      );
      expectRejected(
        (d) => (d.spec.template.metadata.labels['kubernetes.io/hostname'] = 'x'),
        'spec.template.metadata.labels["kubernetes.io/hostname"]',
      );
      expectRejected(
        (d) => (d.spec.template.metadata.labels.team = 'not a label value'),
        'spec.template.metadata.labels.team',
        /alphanumerics/,
      );
      expectRejected(
        (d) => (d.spec.template.metadata.labels.team = 'x'.repeat(64)),
        'spec.template.metadata.labels.team',
        /63/,
      );
      expectRejected((d) => (d.spec.template.metadata.labels.team = 5), 'spec.template.metadata.labels.team');
    });

    it('taints with a bad effect, an empty key or a duplicate key and effect', () => {
      expectRejected(
        (d) => (d.spec.template.spec.taints[0].effect = 'NoRun'),
        'spec.template.spec.taints[0].effect',
      );
      expectRejected((d) => (d.spec.template.spec.taints[0].key = ''), 'spec.template.spec.taints[0].key');
      expectRejected(
        (d) => delete d.spec.template.spec.startupTaints[0].effect,
        'spec.template.spec.startupTaints[0].effect',
      );
      expectRejected(
        (d) => (d.spec.template.spec.taints[0].value = 'has spaces'),
        'spec.template.spec.taints[0].value',
      );
      expectRejected(
        (d) => (d.spec.template.spec.startupTaints[0].key = 'example.com/special-taint'),
        'spec.template.spec.startupTaints[0]',
        /duplicate taint/,
      );
    });

    it('bad expireAfter, terminationGracePeriod and consolidateAfter durations', () => {
      expectRejected((d) => (d.spec.template.spec.expireAfter = '30d'), 'spec.template.spec.expireAfter');
      expectRejected(
        (d) => (d.spec.template.spec.terminationGracePeriod = 'Never'),
        'spec.template.spec.terminationGracePeriod',
      );
      expectRejected(
        (d) => (d.spec.disruption.consolidateAfter = '1.5h'),
        'spec.disruption.consolidateAfter',
      );
    });

    it('a disruption block without consolidateAfter, as the CRD does', () => {
      expectRejected(
        (d) => delete d.spec.disruption.consolidateAfter,
        'spec.disruption.consolidateAfter',
        /required/,
      );
    });

    it('an unknown consolidationPolicy, including the v1beta1 WhenUnderutilized', () => {
      expectRejected(
        (d) => (d.spec.disruption.consolidationPolicy = 'WhenUnderutilized'),
        'spec.disruption.consolidationPolicy',
      );
    });

    it('budgets with a bad nodes value, schedule, duration or reason', () => {
      for (const nodes of ['101%', '10 %', '-1', 'ten', '']) {
        expectRejected(
          (d) => (d.spec.disruption.budgets[0].nodes = nodes),
          'spec.disruption.budgets[0].nodes',
        );
      }
      expectRejected((d) => (d.spec.disruption.budgets[0].nodes = 5), 'spec.disruption.budgets[0].nodes');
      expectRejected(
        (d) => (d.spec.disruption.budgets[2].schedule = 'daily'),
        'spec.disruption.budgets[2].schedule',
      );
      expectRejected(
        (d) => (d.spec.disruption.budgets[2].duration = '30s'),
        'spec.disruption.budgets[2].duration',
      );
      expectRejected(
        (d) => (d.spec.disruption.budgets[0].reasons = ['Expired']),
        'spec.disruption.budgets[0].reasons[0]',
      );
      expectRejected(
        (d) => (d.spec.disruption.budgets[0].reasons = ['Empty', 'Empty']),
        'spec.disruption.budgets[0].reasons[1]',
      );
    });

    it("a schedule the CRD's pattern lets through but robfig/cron's standard parser refuses", () => {
      for (const [schedule, message] of [
        ['0 9 * * 7', /"7" is beyond the day of week's 0-6/],
        ['0 9 L * *', /cannot read "L" in the day of month field/],
        ['0 0 * * tue-mon', /the range "tue-mon" in the day of week field begins beyond its end/],
        ['0 0 9 * * *', /expected exactly 5 fields, found 6/],
        ['0 9 30 2 *', /never fires/],
      ] as const) {
        expectRejected(
          (d) => (d.spec.disruption.budgets[2].schedule = schedule),
          'spec.disruption.budgets[2].schedule',
          message,
        );
      }
    });

    it('a schedule without a duration and a duration without a schedule', () => {
      expectRejected(
        (d) => delete d.spec.disruption.budgets[2].duration,
        'spec.disruption.budgets[2].duration',
        /'schedule' must be set with 'duration'/,
      );
      expectRejected(
        (d) => (d.spec.disruption.budgets[1].duration = '1h'),
        'spec.disruption.budgets[1].schedule',
        /'schedule' must be set with 'duration'/,
      );
    });

    it('more than 50 budgets', () => {
      expectRejected(
        (d) => (d.spec.disruption.budgets = Array.from({ length: 51 }, () => ({ nodes: '1' }))),
        'spec.disruption.budgets',
      );
    });

    it('limits that are not quantities or are negative', () => {
      expectRejected((d) => (d.spec.limits.cpu = '1000 cores'), 'spec.limits.cpu', /quantity/);
      expectRejected((d) => (d.spec.limits.memory = '-1Gi'), 'spec.limits.memory', /negative/);
      expectRejected((d) => (d.spec.limits['nvidia.com/gpu'] = true), 'spec.limits["nvidia.com/gpu"]');
    });

    it('a weight outside 1..100 or not an integer', () => {
      expectRejected((d) => (d.spec.weight = 0), 'spec.weight');
      expectRejected((d) => (d.spec.weight = 101), 'spec.weight');
      expectRejected((d) => (d.spec.weight = 1.5), 'spec.weight');
      expectRejected((d) => (d.spec.weight = '10'), 'spec.weight');
    });

    it('negative replicas and static NodePools with weight or limits other than nodes', () => {
      expectRejected((d) => (d.spec.replicas = -1), 'spec.replicas');
      expectRejected(
        (d) => {
          d.spec.replicas = 2;
          delete d.spec.weight;
        },
        'spec.limits.cpu',
        /only 'limits.nodes'/,
      );
      expectRejected(
        (d) => {
          d.spec.replicas = 2;
          d.spec.limits = { nodes: 3 };
        },
        'spec.weight',
        /'weight' is not supported on static NodePools/,
      );
    });
  });
});
