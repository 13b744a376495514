import { type GetParametersByPathCommandInput, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../../shared/aws/retry';
import { mergeWithCrds } from '../../../shared/aws/ssm-config/merge-with-crds';
import { SsmNodePoolConfig } from '../../../shared/aws/ssm-config/ssm-nodepool-config';
import { CloudError, ValidationError } from '../../../shared/core/model/errors';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeSsm, type ParameterSeed } from '../../../sim/fakes/aws/fake-ssm';
import { VirtualTime, waitsAtOnce } from '../../../sim/virtual-time';
import { nodeClass, nodePool } from '../../../sim/world/builders';

function nodePoolYaml(name: string, cpu = '50'): string {
  return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: ${name}
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: [spot, on-demand]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
  limits:
    cpu: ${cpu}
`;
}

function nodeClassJson(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      role: 'KarpenterNodeRole-demo',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      ...extra,
    },
  });
}

function world(parameters: readonly ParameterSeed[], retry: Partial<RetryPolicy> = {}) {
  const clock = new VirtualTime();
  const fake = new FakeSsm({ clock, parameters });
  const ssm = new SSMClient(clientConfig);
  attachFake(ssm, fake);
  const sleeps: number[] = [];
  const config = new SsmNodePoolConfig({
    ssm,
    cluster: 'demo',
    retry: {
      timers: waitsAtOnce(clock, sleeps),
      random: () => 0.5,
      ...retry,
    },
  });
  return { fake, config, sleeps };
}

describe('SsmNodePoolConfig.load', () => {
  it('reads every NodePool page by page, recursively and decrypted, and YAML and JSON alike', async () => {
    const pools = Array.from({ length: 23 }, (_, i) => ({
      name: `/podlift/demo/nodepools/team-${String(i).padStart(2, '0')}`,
      value: nodePoolYaml(`team-${String(i).padStart(2, '0')}`),
    }));
    const { config, fake } = world([
      ...pools,
      { name: '/podlift/demo/nodepools/nested/secret', value: nodePoolYaml('secret'), type: 'SecureString' },
      { name: '/podlift/demo/nodeclasses/default', value: nodeClassJson('default') },
      { name: '/podlift/demo/nodeclasses/gpu', value: nodeClassJson('gpu', { amiFamily: 'AL2023' }) },
      { name: '/podlift/other/nodepools/not-ours', value: nodePoolYaml('not-ours') },
    ]);

    const loaded = await config.load();

    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.nodePools.map((p) => p.name)).toEqual([
      'secret',
      ...pools.map((p) => p.name.split('/').at(-1)),
    ]);
    expect(loaded.nodePools[0]?.limits).toEqual({ cpu: 50_000 });
    expect(loaded.nodeClasses.map((c) => [c.name, c.amiFamily])).toEqual([
      ['default', 'AL2023'],
      ['gpu', 'AL2023'],
    ]);
    const calls = fake.callsTo('GetParametersByPath') as GetParametersByPathCommandInput[];
    expect(calls.map((c) => c.Path)).toEqual([
      '/podlift/demo/nodepools',
      '/podlift/demo/nodepools',
      '/podlift/demo/nodepools',
      '/podlift/demo/nodeclasses',
    ]);
    expect(calls[0]).toMatchObject({ Recursive: true, WithDecryption: true });
    expect(loaded.sources.get('NodePool/team-03')).toBe('/podlift/demo/nodepools/team-03');
  });

  it('skips bad parameters with errors naming each one, and keeps the good ones', async () => {
    const { config } = world([
      { name: '/podlift/demo/nodepools/a-good', value: nodePoolYaml('a-good') },
      { name: '/podlift/demo/nodepools/b-bad-limit', value: nodePoolYaml('b-bad-limit', 'lots') },
      { name: '/podlift/demo/nodepools/c-bad-yaml', value: 'apiVersion: karpenter.sh/v1\nkind: [NodePool\n' },
      { name: '/podlift/demo/nodepools/d-copy', value: nodePoolYaml('a-good') },
      { name: '/podlift/demo/nodeclasses/bad-json', value: '{"apiVersion": "karpenter.k8s.aws/v1",' },
      { name: '/podlift/demo/nodeclasses/default', value: nodeClassJson('default') },
    ]);

    const loaded = await config.load();

    expect(loaded.nodePools.map((p) => p.name)).toEqual(['a-good']);
    expect(loaded.nodeClasses.map((c) => c.name)).toEqual(['default']);
    expect(loaded.errors.every((e) => e instanceof ValidationError)).toBe(true);
    expect(loaded.errors.map((e) => e.location.source)).toEqual([
      '/podlift/demo/nodepools/b-bad-limit',
      '/podlift/demo/nodepools/c-bad-yaml',
      '/podlift/demo/nodepools/d-copy',
      '/podlift/demo/nodeclasses/bad-json',
    ]);
    expect(loaded.errors[0]?.message).toMatch(
      /^\/podlift\/demo\/nodepools\/b-bad-limit, NodePool\/b-bad-limit: spec\.limits\.cpu: .*\(got "lots"\)/,
    );
    expect(loaded.errors[1]?.message).toMatch(/c-bad-yaml: line \d+, column \d+: not valid YAML/);
    expect(loaded.errors[2]?.message).toContain(
      'metadata.name: already defined by SSM parameter /podlift/demo/nodepools/a-good',
    );
    expect(loaded.errors[3]?.message).toContain('not valid JSON');
    expect(loaded.warnings).toHaveLength(4);
    expect(loaded.warnings[0]).toMatch(/^skipping SSM parameter \/podlift\/demo\/nodepools\/b-bad-limit: /);
  });

  it('rejects a manifest of the wrong kind for its folder', async () => {
    const { config } = world([{ name: '/podlift/demo/nodepools/oops', value: nodeClassJson('oops') }]);
    const loaded = await config.load();
    expect(loaded.nodePools).toEqual([]);
    expect(loaded.errors[0]?.location.source).toBe('/podlift/demo/nodepools/oops');
  });

  it('retries throttled reads and fails with a CloudError when SSM refuses access', async () => {
    const throttled = world([{ name: '/podlift/demo/nodepools/a', value: nodePoolYaml('a') }]);
    throttled.fake.throttle('GetParametersByPath', 2);
    expect((await throttled.config.load()).nodePools).toHaveLength(1);
    expect(throttled.sleeps).toEqual([50, 100]);

    const denied = world([]);
    denied.fake.failNext('GetParametersByPath', 'AccessDeniedException', { message: 'not authorized' });
    const error = await denied.config.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudError);
    expect((error as Error).message).toBe(
      'reading SSM parameters under /podlift/demo/nodepools/: AccessDeniedException: not authorized',
    );
  });
});

describe('mergeWithCrds', () => {
  it('keeps the CRD when a name is defined in both, warns naming the parameter, and adds SSM-only objects', () => {
    const merged = mergeWithCrds(
      {
        nodePools: [nodePool({ name: 'default', weight: 10 })],
        nodeClasses: [nodeClass({ name: 'default' })],
      },
      {
        nodePools: [nodePool({ name: 'default', weight: 1 }), nodePool({ name: 'batch' })],
        nodeClasses: [nodeClass({ name: 'gpu' })],
        warnings: ['skipping SSM parameter /podlift/demo/nodepools/x: ...'],
        sources: new Map([['NodePool/default', '/podlift/demo/nodepools/default']]),
      },
    );

    expect(merged.nodePools.map((p) => [p.name, p.weight])).toEqual([
      ['default', 10],
      ['batch', 0],
    ]);
    expect(merged.nodeClasses.map((c) => c.name)).toEqual(['default', 'gpu']);
    expect(merged.warnings).toEqual([
      'skipping SSM parameter /podlift/demo/nodepools/x: ...',
      'NodePool/default is defined both as a CRD and by SSM parameter /podlift/demo/nodepools/default; the CRD wins and the parameter is ignored',
    ]);
  });

  it("ends the warnings with what each EC2NodeClass in use sets that podlift does not honour, not the replaced ones'", () => {
    const merged = mergeWithCrds(
      {
        nodePools: [],
        nodeClasses: [
          { ...nodeClass({ name: 'default' }), warnings: ['spec.placementGroupSelector (pg) is ignored'] },
        ],
      },
      {
        nodePools: [],
        nodeClasses: [
          { ...nodeClass({ name: 'default' }), warnings: ['from the replaced parameter'] },
          { ...nodeClass({ name: 'gpu' }), warnings: ['spec.capacityReservationSelectorTerms is ignored'] },
        ],
      },
    );
    expect(merged.warnings).toEqual([
      'EC2NodeClass/default is defined both as a CRD and in SSM; the CRD wins and the parameter is ignored',
      'EC2NodeClass/default: spec.placementGroupSelector (pg) is ignored',
      'EC2NodeClass/gpu: spec.capacityReservationSelectorTerms is ignored',
    ]);
  });
});
