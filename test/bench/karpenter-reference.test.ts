import { describe, expect, it } from 'vitest';
import { karpenterDecision } from '../../bench/karpenter-reference';
import { loadBundledCatalog } from '../../shared/core/catalog/bundled';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE } from '../../shared/core/model/labels';
import type { Pod } from '../../shared/core/model/pod';
import { schedulingInputFor } from '../../shared/core/scheduling/plan-capacity';
import { nodeClass, nodePool, pods } from '../../sim/world/builders';

const catalog = loadBundledCatalog('us-east-1');

function decide(ps: readonly Pod[], types: string[], limits?: Record<string, string>) {
  const pool = nodePool({
    requirements: [
      { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] },
      { key: LABEL_INSTANCE_TYPE, operator: 'In', values: types },
    ],
    ...(limits ? { limits } : {}),
  });
  const input = schedulingInputFor(
    { pods: ps, daemonSets: [], nodes: [], nodePools: [pool], nodeClasses: [nodeClass()] },
    catalog,
  );
  return karpenterDecision(input);
}

describe("karpenterDecision (Karpenter's decision before consolidation)", () => {
  it('keeps adding pods to a NodeClaim while its largest option holds them, then launches the cheapest that does', () => {
    // m5.2xlarge could take all three; the cheapest type holding 3 cpu is m5.xlarge.
    const plan = decide(pods(3, { cpu: '1' }), ['m5.large', 'm5.xlarge', 'm5.2xlarge']);
    expect(plan.nodes.map((n) => [n.instanceType, n.pods])).toEqual([['m5.xlarge', 3]]);
    expect(plan.unschedulable).toBe(0);
  });

  it('opens a second NodeClaim only when no option of the first holds the next pod, and fills the emptiest first', () => {
    // 5-cpu pods: one per m5.2xlarge (8 vCPU). Each 1-cpu pod goes to the NodeClaim with the
    // fewest pods (first-fit would put both on the first: 3 pods and 1).
    const plan = decide(
      [...pods(2, { cpu: '5' }), ...pods(2, { cpu: '1' })],
      ['m5.large', 'm5.xlarge', 'm5.2xlarge'],
    );
    expect(plan.nodes.map((n) => [n.instanceType, n.pods])).toEqual([
      ['m5.2xlarge', 2],
      ['m5.2xlarge', 2],
    ]);
  });

  it('counts the largest option of each NodeClaim against the limits, as Karpenter subtracts it', () => {
    // With 10 cpu of limits, the first NodeClaim reserves m5.2xlarge's 8 vCPU: a second
    // NodeClaim may only be m5.large (2 vCPU), which cannot hold a 3-cpu pod.
    const plan = decide(pods(3, { cpu: '3' }), ['m5.large', 'm5.xlarge', 'm5.2xlarge'], { cpu: '10' });
    expect(plan.nodes.map((n) => n.instanceType)).toEqual(['m5.2xlarge']);
    expect(plan.unschedulable).toBe(1);
  });
});
