import { describe, expect, it } from 'vitest';
import { formatPlanJson, PlanJsonSchema, planToJson } from '../../cli/plan-json';
import { formatPlanTable } from '../../cli/plan-table';
import { podFromManifest } from '../../shared/core/manifests/pod-manifest';
import type { CapacityType } from '../../shared/core/model/capacity-type';
import type { Pod } from '../../shared/core/model/pod';
import { Requirements } from '../../shared/core/model/requirements';
import type { NodeClaimPlan, SchedulingResult } from '../../shared/core/scheduling/types';
import { pod } from './fixtures';

function pods(...names: string[]): Pod[] {
  return names.map((name) => podFromManifest(pod(name, { namespace: 'shop' })));
}

function nodeClaim(options: {
  nodePool?: string;
  instanceTypes: [string, number][];
  capacityType?: CapacityType;
  zone?: string;
  pods: Pod[];
}): NodeClaimPlan {
  const capacityType = options.capacityType ?? 'on-demand';
  const zone = options.zone ?? 'us-east-1a';
  const [[instanceType, price]] = options.instanceTypes;
  return {
    nodePool: options.nodePool ?? 'default',
    nodeClass: 'default',
    instanceTypeOptions: options.instanceTypes.map(([name, p]) => ({ name, price: p, capacityType, zone })),
    instanceType,
    capacityType,
    capacityTypes: [capacityType],
    zone,
    zones: [zone],
    price,
    requirements: Requirements.EMPTY,
    labels: {},
    taints: [],
    startupTaints: [],
    pods: options.pods,
    requests: {},
    daemonSetRequests: {},
  };
}

const RESULT: SchedulingResult = {
  nodeClaims: [
    nodeClaim({
      instanceTypes: [
        ['c5.2xlarge', 0.123456],
        ['m5.2xlarge', 0.2],
      ],
      capacityType: 'spot',
      zone: 'us-east-1b',
      pods: pods('web-0', 'web-1', 'web-2'),
    }),
    nodeClaim({ nodePool: 'on-demand', instanceTypes: [['m5.large', 0.096]], pods: pods('api-0') }),
  ],
  placements: [
    { node: 'ip-10-0-2-2', pods: pods('late-0') },
    { node: 'ip-10-0-1-1', pods: pods('early-0', 'early-1') },
  ],
  unschedulable: [
    {
      pod: pods('gpu-0')[0],
      cause: {
        kind: 'no-nodepool-tolerates-taint',
        taint: { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
      },
      reason: 'no NodePool tolerates taint nvidia.com/gpu=true:NoSchedule',
    },
  ],
};

const EMPTY: SchedulingResult = { nodeClaims: [], placements: [], unschedulable: [] };

describe('planToJson', () => {
  it('conforms to the documented schema', () => {
    expect(PlanJsonSchema.safeParse(planToJson('us-east-1', RESULT)).success).toBe(true);
    expect(PlanJsonSchema.safeParse(planToJson('eu-west-1', EMPTY)).success).toBe(true);
    expect(PlanJsonSchema.safeParse(JSON.parse(formatPlanJson('us-east-1', RESULT))).success).toBe(true);
  });

  it('reports claims, existing-node placements, unschedulable pods and a summary', () => {
    expect(planToJson('us-east-1', RESULT)).toEqual({
      region: 'us-east-1',
      nodeClaims: [
        {
          nodePool: 'default',
          instanceType: 'c5.2xlarge',
          instanceTypeOptions: ['c5.2xlarge', 'm5.2xlarge'],
          capacityType: 'spot',
          zone: 'us-east-1b',
          hourlyPrice: 0.1235,
          pods: ['shop/web-0', 'shop/web-1', 'shop/web-2'],
        },
        {
          nodePool: 'on-demand',
          instanceType: 'm5.large',
          instanceTypeOptions: ['m5.large'],
          capacityType: 'on-demand',
          zone: 'us-east-1a',
          hourlyPrice: 0.096,
          pods: ['shop/api-0'],
        },
      ],
      existingNodes: [
        { node: 'ip-10-0-1-1', pods: ['shop/early-0', 'shop/early-1'] },
        { node: 'ip-10-0-2-2', pods: ['shop/late-0'] },
      ],
      unschedulable: [
        { pod: 'shop/gpu-0', reason: 'no NodePool tolerates taint nvidia.com/gpu=true:NoSchedule' },
      ],
      summary: { pods: 7, nodeClaims: 2, hourlyCost: 0.2195 },
    });
  });

  it('rejects output with fields the schema does not document', () => {
    const json = { ...planToJson('us-east-1', RESULT), extra: true };
    expect(PlanJsonSchema.safeParse(json).success).toBe(false);
  });
});

describe('formatPlanTable', () => {
  const table = formatPlanTable(planToJson('us-east-1', RESULT));
  const lines = table.split('\n');

  it('shows the region, then one aligned row per new NodeClaim', () => {
    expect(lines[0]).toBe('Plan for us-east-1');
    expect(lines.slice(2, 5)).toEqual([
      'NODEPOOL   INSTANCE TYPE  CAPACITY   ZONE        PODS  $/HOUR',
      'default    c5.2xlarge     spot       us-east-1b     3  0.1235',
      'on-demand  m5.large       on-demand  us-east-1a     1  0.0960',
    ]);
  });

  it('sums up pods placed, new nodes and cost per hour and per 730-hour month', () => {
    expect(table).toContain('Pods placed:    7 (4 on new nodes, 3 on existing nodes)');
    expect(table).toContain('New nodes:      2');
    expect(table).toContain('Cost:           $0.2195/hour, $160.24/month (730 h)');
    expect(table).toContain('Unschedulable:  1');
    expect(table).toContain('Spot prices are estimates unless given with --spot-prices.');
  });

  it('lists placements on existing nodes and unschedulable pods with their reasons', () => {
    expect(table).toContain(
      ['Placed on existing nodes:', 'NODE         PODS', 'ip-10-0-1-1     2', 'ip-10-0-2-2     1'].join('\n'),
    );
    expect(table).toContain(
      [
        'Unschedulable pods (1):',
        'POD         REASON',
        'shop/gpu-0  no NodePool tolerates taint nvidia.com/gpu=true:NoSchedule',
      ].join('\n'),
    );
  });

  it('says so when no new node is needed, and leaves out empty sections', () => {
    const empty = formatPlanTable(planToJson('eu-west-1', EMPTY));
    expect(empty).toContain('Plan for eu-west-1\n\nNo new nodes needed.');
    expect(empty).toContain('Cost:           $0.0000/hour, $0.00/month (730 h)');
    expect(empty).not.toContain('existing nodes:');
    expect(empty).not.toContain('Unschedulable pods');
    expect(empty).not.toContain('Spot prices');
  });

  it('ends no line with spaces', () => {
    expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
  });
});
