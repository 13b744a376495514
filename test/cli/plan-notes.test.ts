import { describe, expect, it } from 'vitest';
import type { PlanJson } from '../../cli/plan-json';
import { planNotes } from '../../cli/plan-notes';
import { formatPlanTable } from '../../cli/plan-table';

function plan(claims: [instanceType: string, hourlyPrice: number, zone?: string][]): PlanJson {
  const nodeClaims = claims.map(([instanceType, hourlyPrice, zone], i) => ({
    nodePool: 'default',
    instanceType,
    instanceTypeOptions: [instanceType],
    capacityType: 'on-demand',
    zone: zone ?? 'us-east-1a',
    hourlyPrice,
    pods: [`default/p${i}`],
  }));
  const hourlyCost = claims.reduce((s, [, p]) => s + p, 0);
  return {
    region: 'us-east-1',
    nodeClaims,
    existingNodes: [],
    unschedulable: [],
    summary: { pods: claims.length, nodeClaims: claims.length, hourlyCost },
  };
}

describe('planNotes', () => {
  it('says when burstable types carry a large share of the cost and how to exclude them', () => {
    const notes = planNotes(
      plan([
        ['t4g.medium', 0.0336],
        ['t4g.medium', 0.0336],
        ['m6g.large', 0.077],
      ]),
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/Burstable types \(t4g\.medium\) carry 47 % of the cost/);
    expect(notes[0]).toMatch(/instance-category, operator: NotIn, values: \[t\]/);
  });

  it('stays quiet when burstable types are a small share', () => {
    expect(
      planNotes(
        plan([
          ['t3.micro', 0.0104],
          ['m5.xlarge', 0.192],
        ]),
      ),
    ).toEqual([]);
  });

  it('names types sold in few zones with the zones the plan put them in', () => {
    const notes = planNotes(
      plan([
        ['hpc7g.16xlarge', 1.6832, 'us-east-1b'],
        ['hpc7g.16xlarge', 1.6832, 'us-east-1a'],
        ['c6g.metal', 2.176],
        ['m6g.large', 0.077],
      ]),
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^hpc7g\.16xlarge \(60 % of the cost, in us-east-1a, us-east-1b\); c6g\.metal/);
    expect(notes[0]).toMatch(/no per-zone availability/);
  });

  it('is printed under the summary of the table', () => {
    const p = plan([['t4g.medium', 0.0336]]);
    const table = formatPlanTable(p, planNotes(p));
    expect(table).toMatch(/Unschedulable: +0\n\nNotes:\n- Burstable types/);
    expect(table.split('\n').every((l) => l.length <= 100)).toBe(true);
  });
});
