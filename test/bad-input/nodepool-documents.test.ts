import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClusterSnapshot } from '../../functions/cluster-snapshot';
import { makeDisruptionHandler } from '../../functions/disruption/handler';
import { makeInterruptionHandler } from '../../functions/interruption/handler';
import { makeProvisionerHandler } from '../../functions/provisioner/handler';
import { runtimeOf } from '../../functions/runtime';
import { makeTerminationHandler } from '../../functions/termination/handler';
import { UnavailableOfferings } from '../../shared/core/catalog/unavailable-offerings';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { ec2NodeClassManifest, nodePoolManifest } from '../../sim/world/builders';
import {
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  scheduledEvent,
  seedPendingPods,
} from '../functions/provisioner/world';
import {
  aliasBomb,
  deepBlock,
  deepFlow,
  deepJson,
  deepValue,
  header,
  mergeKeyBomb,
  nodePoolYaml,
  selfReference,
} from './hostile-documents';

// The reviewer's finding (issue 20, item 1): one SSM parameter holding a YAML alias bomb made
// every loop throw. Karpenter validates each NodePool on its own and reports a bad one on its
// status (kubernetes-sigs/karpenter pkg/controllers/nodepool/validation/controller.go
// Reconcile: ValidationSucceeded=False with the error), the others keep working. Here every
// bad document sits beside a good NodePool from the cluster and one from SSM, in one world:
// each is skipped by name with its reason, the good ones launch, and every loop runs.

const PREFIX = '/podlift/demo';

/** Hostile or malformed SSM parameters, each with what its warning must say. */
const SSM_DOCUMENTS: readonly { readonly name: string; readonly value: string; readonly says: string }[] = [
  {
    name: 'nodepools/alias-bomb',
    value: `${header('NodePool', 'bomb')}${aliasBomb()}`,
    says: 'aliases resolved',
  },
  {
    name: 'nodepools/alias-bomb-in-spec',
    value: nodePoolYaml('bomb2', `  limits:\n${aliasBomb(9, 10, '    ')}`),
    says: 'aliases resolved',
  },
  {
    name: 'nodepools/merge-key-bomb',
    value: `${header('NodePool', 'merge')}${mergeKeyBomb()}`,
    says: 'aliases resolved',
  },
  {
    name: 'nodepools/self-reference',
    value: `${header('NodePool', 'loop')}${selfReference}`,
    says: 'refers to itself',
  },
  {
    name: 'nodepools/deep-flow',
    value: `${header('NodePool', 'flow')}spec: ${deepFlow(4000)}`,
    says: 'nests more than 1000 flow collections',
  },
  {
    name: 'nodepools/deep-block',
    value: `${header('NodePool', 'block')}${deepBlock(110)}`,
    says: 'nested more than 100 levels deep',
  },
  {
    name: 'nodepools/deep-json',
    value: `{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"json"},"spec":${deepJson(1000)}}`,
    says: 'nested more than 100 levels deep',
  },
  {
    name: 'nodepools/over-8kb',
    value: nodePoolYaml('big', `  limits: { cpu: "${'9'.repeat(8200)}" }\n`),
    says: 'longer than the 8192 bytes an SSM parameter holds',
  },
  {
    name: 'nodepools/tab-indented',
    value: 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n\tname: tabs\n',
    says: 'not valid YAML',
  },
  { name: 'nodepools/not-json', value: '{"apiVersion": "karpenter.sh/v1", "kind": ', says: 'not valid JSON' },
  {
    name: 'nodepools/two-documents',
    value: `${nodePoolYaml('one')}---\n${nodePoolYaml('two')}`,
    says: 'expected one YAML document',
  },
  {
    name: 'nodepools/a-list',
    value: '- apiVersion: karpenter.sh/v1\n- kind: NodePool\n',
    says: 'must be an object',
  },
  { name: 'nodepools/a-scalar', value: 'just a string', says: 'must be an object' },
  { name: 'nodepools/empty', value: '   \n', says: 'empty: expected one YAML or JSON manifest' },
  {
    name: 'nodepools/wrong-kind',
    value: nodePoolYaml('pod').replace('kind: NodePool', 'kind: Pod'),
    says: 'must be NodePool',
  },
  {
    name: 'nodepools/v1beta1',
    value: nodePoolYaml('old').replace('karpenter.sh/v1', 'karpenter.sh/v1beta1'),
    says: 'no longer served',
  },
  {
    name: 'nodepools/long-unknown-field',
    value: nodePoolYaml('unknown', `  ${'x'.repeat(1000)}: 1\n`),
    says: 'unknown field',
  },
  {
    name: 'nodepools/bad-operator',
    value: nodePoolYaml('operator').replace('operator: In', 'operator: Within'),
    says: 'requirements[0].operator',
  },
  {
    name: 'nodepools/bad-limit',
    value: nodePoolYaml('limit', '  limits: { cpu: lots }\n'),
    says: 'limits.cpu',
  },
  {
    name: 'nodepools/no-node-class',
    value: nodePoolYaml('ref').replace(/ {6}nodeClassRef.*\n/, ''),
    says: 'nodeClassRef',
  },
  {
    name: 'nodepools/duplicate-key',
    value: `${nodePoolYaml('dup')}  weight: 1\n  weight: 2\n`,
    says: 'Map keys must be unique',
  },
  {
    name: 'nodepools/zz-same-name',
    value: nodePoolYaml('from-ssm'),
    says: 'already defined by SSM parameter',
  },
  {
    name: 'nodeclasses/alias-bomb',
    value: `${header('EC2NodeClass', 'bomb')}${aliasBomb()}`,
    says: 'aliases resolved',
  },
  {
    name: 'nodeclasses/deep-tags',
    value: `${header('EC2NodeClass', 'tags')}spec:\n  tags: ${JSON.stringify(deepValue(150))}\n`,
    says: 'nested more than 100 levels deep',
  },
  {
    name: 'nodeclasses/no-selectors',
    value: `${header('EC2NodeClass', 'bare')}spec:\n  role: R\n`,
    says: 'required field is missing',
  },
];

/** Cluster objects (as etcd could hold them under an older or schemaless CRD), each with what its error must say. */
const CRD_OBJECTS: readonly {
  readonly kind: 'NodePool' | 'EC2NodeClass';
  readonly name: string;
  readonly body: (o: Record<string, unknown>) => Record<string, unknown>;
  readonly says: string;
}[] = [
  {
    kind: 'NodePool',
    name: 'deep',
    body: (o) => ({ ...o, spec: deepValue(1000) }),
    says: 'nested more than 100 levels deep',
  },
  {
    kind: 'NodePool',
    name: 'deep-limits',
    body: (o) => withSpec(o, { limits: deepValue(500) }),
    says: 'nested more than 100 levels deep',
  },
  { kind: 'NodePool', name: 'null-spec', body: (o) => ({ ...o, spec: null }), says: 'spec' },
  { kind: 'NodePool', name: 'string-spec', body: (o) => ({ ...o, spec: 'x'.repeat(100_000) }), says: 'spec' },
  { kind: 'NodePool', name: 'no-template', body: (o) => ({ ...o, spec: {} }), says: 'spec.template' },
  {
    kind: 'NodePool',
    name: 'requirements-map',
    body: (o) => template(o, { requirements: { a: 1 } }),
    says: 'requirements',
  },
  {
    kind: 'NodePool',
    name: 'many-requirements',
    body: (o) =>
      template(o, {
        requirements: Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, operator: 'Bad', values: [] })),
      }),
    says: 'operator',
  },
  {
    kind: 'NodePool',
    name: 'bad-taint',
    body: (o) => template(o, { taints: [{ key: 'a', effect: 'Explode' }] }),
    says: 'taints[0].effect',
  },
  { kind: 'NodePool', name: 'huge-weight', body: (o) => withSpec(o, { weight: 1e308 }), says: 'weight' },
  {
    kind: 'NodePool',
    name: 'bad-limit',
    body: (o) => withSpec(o, { limits: { cpu: 'abc' } }),
    says: 'limits.cpu',
  },
  {
    kind: 'NodePool',
    name: 'bad-budget',
    body: (o) => withSpec(o, { disruption: { budgets: [{ nodes: '200%' }] } }),
    says: 'budgets',
  },
  {
    kind: 'NodePool',
    name: 'bad-expiry',
    body: (o) => template(o, { expireAfter: 'forever' }),
    says: 'expireAfter',
  },
  {
    kind: 'NodePool',
    name: 'unnamed-ref',
    body: (o) =>
      template(o, { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: '' } }),
    says: 'nodeClassRef',
  },
  {
    kind: 'NodePool',
    name: 'unknown-field',
    body: (o) => withSpec(o, { [`x${'y'.repeat(5000)}`]: deepValue(50) }),
    says: 'unknown field',
  },
  {
    kind: 'EC2NodeClass',
    name: 'deep-tags',
    body: (o) => withSpec(o, { tags: deepValue(800) }),
    says: 'nested more than 100 levels deep',
  },
  {
    kind: 'EC2NodeClass',
    name: 'wide-tags',
    body: (o) =>
      withSpec(o, { tags: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])) }),
    says: 'tags',
  },
  {
    kind: 'EC2NodeClass',
    name: 'string-subnets',
    body: (o) => withSpec(o, { subnetSelectorTerms: 'all' }),
    says: 'subnetSelectorTerms',
  },
  {
    kind: 'EC2NodeClass',
    name: 'no-ami',
    body: (o) => withSpec(o, { amiSelectorTerms: [] }),
    says: 'amiSelectorTerms',
  },
  {
    kind: 'EC2NodeClass',
    name: 'huge-userdata',
    body: (o) => withSpec(o, { userData: 7 }),
    says: 'userData',
  },
  {
    kind: 'EC2NodeClass',
    name: 'bad-metadata-options',
    body: (o) => withSpec(o, { metadataOptions: { httpTokens: 'sometimes' } }),
    says: 'metadataOptions.httpTokens',
  },
];

function withSpec(o: Record<string, unknown>, spec: Record<string, unknown>) {
  return { ...o, spec: { ...(o.spec as object), ...spec } };
}
function template(o: Record<string, unknown>, spec: Record<string, unknown>) {
  const t = (o.spec as { template: { spec: object } }).template;
  return withSpec(o, { template: { ...t, spec: { ...t.spec, ...spec } } });
}
const RESOURCES = {
  NodePool: 'nodepools.karpenter.sh',
  EC2NodeClass: 'ec2nodeclasses.karpenter.k8s.aws',
} as const;

let pw: ProvisionerWorld;
let snapshot: ClusterSnapshot;
const seen = new RecordingObservability();
const results: Record<string, unknown> = {};

beforeAll(async () => {
  pw = await provisionerWorld();
  const { kube, ssm } = pw.world.fakes;
  ssm.seed({ name: `${PREFIX}/nodepools/from-ssm`, value: nodePoolYaml('from-ssm') });
  for (const d of SSM_DOCUMENTS) ssm.seed({ name: `${PREFIX}/${d.name}`, value: d.value });
  for (const o of CRD_OBJECTS) {
    const base =
      o.kind === 'NodePool' ? nodePoolManifest({ name: o.name }) : ec2NodeClassManifest({ name: o.name });
    kube.store.seed(RESOURCES[o.kind], o.body(base as Record<string, unknown>));
  }
  seedPendingPods(pw.world, 3);
  const { world } = pw;
  const loaded = await loadClusterSnapshot(
    world.ports,
    {
      time: world.time,
      holder: 't/1',
      correlationId: 'c',
      deadline: world.time.now() + 60_000,
      log: seen.log,
      metrics: seen.metricsPort,
    },
    new UnavailableOfferings(world.time),
  );
  snapshot = loaded.snapshot;
  // Every loop runs in the same world: each must finish, not throw.
  const runtime = (loop: 'provisioner' | 'disruption' | 'termination' | 'interruption') =>
    runtimeOf(loop, world.ports, world.time, seen.log, seen.metricsPort);
  results.provisioner = await makeProvisionerHandler(() => runtime('provisioner'))(
    scheduledEvent('p'),
    lambdaContext('p'),
  );
  results.disruption = await makeDisruptionHandler(() => runtime('disruption'))(
    scheduledEvent('d'),
    lambdaContext('d'),
  );
  results.termination = await makeTerminationHandler(() => runtime('termination'))(
    scheduledEvent('t'),
    lambdaContext('t'),
  );
  results.interruption = await makeInterruptionHandler(() => runtime('interruption'))(
    { Records: [] },
    lambdaContext('i'),
  );
}, 120_000);

afterAll(async () => {
  await pw?.world.close();
});

/** The warnings that named `source`/`object`. */
const skipped = (match: (fields: Record<string, unknown>) => boolean) =>
  seen
    .linesSaying('skipping an invalid object')
    .filter((l) => l.level === 'warn' && match(l.fields as Record<string, unknown>));

describe('malformed and hostile NodePools and EC2NodeClasses (SSM and CRD) stop nothing', () => {
  it('keeps the good NodePools and EC2NodeClass, and every loop runs in the same world', () => {
    expect(snapshot.nodePools.map((p) => p.name).sort()).toEqual(['default', 'from-ssm']);
    expect(snapshot.nodeClasses.map((c) => c.name)).toEqual(['default']);
    expect(results.provisioner).toMatchObject({ ran: true, nodeClaimsLaunched: 1, podsUnschedulable: 0 });
    expect(results.disruption).toMatchObject({ ran: true });
    expect(results.termination).toBeDefined();
    expect(results.interruption).toStrictEqual({ batchItemFailures: [] });
    expect(SSM_DOCUMENTS.length + CRD_OBJECTS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(SSM_DOCUMENTS)('skips SSM parameter $name by name, saying why', ({ name, says }) => {
    const parameter = `${PREFIX}/${name}`;
    const lines = skipped((f) => f.source === parameter);
    // One line per loop that read it (the snapshot above, provisioner, disruption, termination).
    expect(lines).toHaveLength(4);
    const error = String(lines[0]?.fields.error);
    expect(error).toContain(parameter);
    expect(error).toContain(says);
    expect(error.length).toBeLessThan(2000);
    expect(String(lines[0]?.fields.object)).toMatch(/^(NodePool|EC2NodeClass)\//);
  });

  it.each(CRD_OBJECTS)('skips $kind/$name from the cluster by name, saying why', ({ kind, name, says }) => {
    const lines = skipped((f) => f.object === `${kind}/${name}` && f.source === 'cluster');
    expect(lines).toHaveLength(4);
    const error = String(lines[0]?.fields.error);
    expect(error).toContain(`${kind}/${name.slice(0, 100)}`);
    expect(error).toContain(says);
    expect(error.length).toBeLessThan(2000);
  });

  it.each(CRD_OBJECTS)(
    'writes ValidationSucceeded=False and Ready=False with the reason on $kind/$name',
    ({ kind, name, says }) => {
      const stored = pw.world.fakes.kube.store.get(RESOURCES[kind], name) as {
        status?: { conditions?: { type: string; status: string; message: string }[] };
      };
      for (const type of ['ValidationSucceeded', 'Ready']) {
        const condition = stored.status?.conditions?.find((c) => c.type === type);
        expect(condition?.status, type).toBe('False');
        expect(condition?.message).toContain(says);
      }
    },
  );

  it('writes nothing for an SSM parameter, whose name may be no object of the cluster', () => {
    // `from-ssm` is defined twice in SSM (the second is skipped) and exists in no CRD.
    expect(pw.world.fakes.kube.store.find(RESOURCES.NodePool, 'from-ssm')).toBeUndefined();
    // (The valid `from-ssm` itself gets a status write that finds no object: reportNodePools
    // writes every NodePool's status, SSM ones included, which is older than this suite.)
    const written = seen.linesSaying('writing NodePool status failed').map((l) => l.fields.nodePool);
    expect(written.filter((name) => name !== 'from-ssm')).toEqual([]);
  });

  it('counts the skipped objects by kind in every loop', () => {
    const pools =
      SSM_DOCUMENTS.filter((d) => d.name.startsWith('nodepools/')).length +
      CRD_OBJECTS.filter((o) => o.kind === 'NodePool').length;
    const classes = SSM_DOCUMENTS.length + CRD_OBJECTS.length - pools;
    expect(seen.total('InvalidObjects', { kind: 'NodePool' })).toBe(4 * pools);
    expect(seen.total('InvalidObjects', { kind: 'EC2NodeClass' })).toBe(4 * classes);
  });
});
