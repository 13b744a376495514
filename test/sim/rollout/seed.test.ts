import { afterEach, describe, expect, it } from 'vitest';
import type { RolloutInput } from '../../../cli/diff-rollout';
import { restoreNodePools, seedWorld, worldNodeClass, zoneMapping } from '../../../sim/rollout/seed';
import { Simulation } from '../../../sim/world/simulation';

// biome-ignore lint/suspicious/noExplicitAny: the API server's untyped JSON
type Json = Record<string, any>;

let sim: Simulation | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const nodeClass = {
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default', resourceVersion: '7' },
  spec: {
    role: 'ProdNodeRole',
    amiSelectorTerms: [{ id: 'ami-0123' }],
    amiFamily: 'AL2023',
    subnetSelectorTerms: [{ tags: { team: 'prod' } }],
    securityGroupSelectorTerms: [{ tags: { team: 'prod' } }],
    tags: { team: 'prod' },
  },
  status: { amis: [{ id: 'ami-0123' }] },
};
const nodePool = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'web' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1b'] }],
      },
    },
    disruption: {
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '0s',
      budgets: [{ nodes: '3' }],
    },
  },
};
const input: RolloutInput = {
  nodePools: [nodePool],
  nodeClasses: [nodeClass],
  changed: [],
  nodes: [
    {
      nodeClaim: 'web-a',
      node: 'ip-10-1-2-3.eu-west-1.compute.internal',
      nodePool: 'web',
      instanceType: 'm5.large',
      zone: 'eu-west-1b',
      capacityType: 'on-demand',
      drifts: true,
      pods: [
        {
          namespace: 'shop',
          name: 'web-7c9f8-abcde',
          owner: { kind: 'ReplicaSet', name: 'web-7c9f8' },
          requests: { cpu: '500m' },
          labels: { app: 'web' },
          annotations: {},
          nodeSelector: {},
          tolerations: [],
        },
      ],
    },
  ],
  budgets: [{ namespace: 'shop', name: 'web', matchLabels: { app: 'web' }, maxUnavailable: 1 }],
  maxDurationMs: 60_000,
};

describe('worldNodeClass', () => {
  it('keeps the hashed spec and points selectors and role at the world', () => {
    const c = worldNodeClass(nodeClass);
    expect(c.spec.tags).toEqual({ team: 'prod' });
    expect(c.spec.role).toBe('KarpenterNodeRole-demo');
    expect(c.spec.amiSelectorTerms).toEqual([{ alias: 'al2023@latest' }]);
    expect(c.spec.subnetSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': 'demo' } }]);
    expect(c.status).toBeUndefined();
    expect(c.metadata.resourceVersion).toBeUndefined();
  });
});

describe('zoneMapping', () => {
  it('maps the cluster’s zones onto the world’s in sorted order, and keeps the world’s own', () => {
    const zoneOf = zoneMapping({
      ...input,
      nodes: ['eu-west-1c', 'eu-west-1a', 'us-east-1b'].map((zone) => ({ ...input.nodes[0], zone })),
    });
    expect(['eu-west-1a', 'eu-west-1c', 'us-east-1b'].map(zoneOf)).toEqual([
      'us-east-1a',
      'us-east-1b',
      'us-east-1b',
    ]);
  });
});

describe('seedWorld', () => {
  it('launches each NodeClaim under its name, binds its pods, and disrupts nothing until the NodePools are restored', async () => {
    sim = await Simulation.start();
    const world = await seedWorld(sim, input, 120_000);
    const store = sim.world.fakes.kube.store;
    const claim = store.find('nodeclaims.karpenter.sh', 'web-a') as Json;
    expect(claim.metadata.labels['topology.kubernetes.io/zone']).toBe('us-east-1a');
    expect(claim.metadata.labels['node.kubernetes.io/instance-type']).toBe('m5.large');
    const node = world.nodeOfClaim('web-a');
    expect(node).toBeDefined();
    const pod = store.find('pods', 'web-7c9f8-abcde', 'shop') as Json;
    expect(pod.spec.nodeName).toBe(node);
    expect(sim.workloads.scaleOf('shop', 'ReplicaSet', 'web-7c9f8')).toBe(1);
    expect(store.find('poddisruptionbudgets.policy', 'web', 'shop')).toBeDefined();
    const pool = () => store.find('nodepools.karpenter.sh', 'web') as Json;
    expect(pool().spec.disruption.budgets).toEqual([{ nodes: '0' }]);
    expect(pool().spec.template.spec.requirements[0].values).toEqual(['us-east-1a']);
    restoreNodePools(sim, input, world.zoneOf);
    expect(pool().spec.disruption.budgets).toEqual([{ nodes: '3' }]);
  }, 120_000);
});
