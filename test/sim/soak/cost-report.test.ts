import { describe, expect, it } from 'vitest';
import {
  costReport,
  formatCostComparison,
  formatCostReport,
  phaseAt,
  settleWindowMs,
} from '../../../sim/soak/cost-report';

describe('the soak cost report', () => {
  it('settles consolidateAfter plus one disruption cycle (the next minute run and its 15 s validation) after a change', () => {
    expect(settleWindowMs(60_000)).toBe(135_000);
    expect(settleWindowMs(0)).toBe(75_000);
  });

  it('calls a point settling within the window after the last change before it, settled after', () => {
    const changes = [0, 100_000, 1_000_000];
    expect(phaseAt(100_000, changes, 135_000)).toBe('settling');
    expect(phaseAt(234_999, changes, 135_000)).toBe('settling');
    expect(phaseAt(235_000, changes, 135_000)).toBe('settled');
    // A later change does not count for an earlier point, nor one at the point's own time.
    expect(phaseAt(900_000, changes, 135_000)).toBe('settled');
    expect(phaseAt(1_000_000, changes, 135_000)).toBe('settled');
    // Nothing changed yet: settled.
    expect(phaseAt(5_000, [], 135_000)).toBe('settled');
  });

  it('splits cost ÷ bound by phase, skips points without a bound, and counts evictions and nodes per hour', () => {
    const report = costReport({
      points: [
        { atMs: 60_000, pods: 4, dollarsPerHour: 3, bound: 1 },
        { atMs: 120_000, pods: 4, dollarsPerHour: 2, bound: 1 },
        { atMs: 700_000, pods: 4, dollarsPerHour: 1.2, bound: 1 },
        { atMs: 800_000, pods: 4, dollarsPerHour: 1.1, bound: 1 },
        { atMs: 900_000, pods: 4, dollarsPerHour: 5 },
        { atMs: 950_000, pods: 0, dollarsPerHour: 0, bound: 0 },
      ],
      changesMs: [0, 100_000],
      windowMs: 135_000,
      simulatedMs: 1_800_000,
      evictions: 6,
      disruptedNodes: 3,
      savedDollarsPerHour: 0.3,
    });
    expect(report.settling).toEqual({ points: 2, mean: 2.5, max: 3 });
    expect(report.settled.points).toBe(2);
    expect(report.settled.mean).toBeCloseTo(1.15);
    expect(report.settled.max).toBeCloseTo(1.2);
    expect(report.whole.points).toBe(4);
    expect(report.whole.mean).toBeCloseTo(1.825);
    expect(report.evictionsPerHour).toBe(12);
    expect(report.disruptedNodesPerHour).toBe(6);
    expect(report.savedPerEviction).toBeCloseTo(0.05);
    expect(formatCostReport(report)).toContain('settled: mean 1.15, max 1.20 over 2 point(s)');
    expect(formatCostReport(report)).toContain(
      'evictions per hour: 12.0; nodes disrupted voluntarily per hour: 6.0',
    );
  });

  it('says so when a phase has no point and nothing was evicted', () => {
    const report = costReport({
      points: [],
      changesMs: [],
      windowMs: 1,
      simulatedMs: 0,
      evictions: 0,
      disruptedNodes: 0,
      savedDollarsPerHour: 0,
    });
    expect(report).toEqual({
      settling: { points: 0 },
      settled: { points: 0 },
      whole: { points: 0 },
      evictionsPerHour: 0,
      disruptedNodesPerHour: 0,
    });
    expect(formatCostReport(report)).toContain('settled: no point');
    expect(formatCostReport(report)).toContain('saved per eviction: no eviction');
  });

  it('puts two strategies side by side, one row each with its figures and digest', () => {
    const report = (ratio: number, evictions: number, premium?: number) =>
      costReport({
        points: [
          {
            atMs: 600_000,
            pods: 1,
            dollarsPerHour: ratio,
            bound: 1,
            lpMs: 0,
            ...(premium !== undefined ? { premium } : {}),
          },
        ],
        changesMs: [],
        windowMs: 135_000,
        simulatedMs: 3_600_000,
        evictions,
        disruptedNodes: 2,
        savedDollarsPerHour: 1,
      });
    const text = formatCostComparison([
      { name: 'karpenter', report: report(1.5, 30, 0.25), digest: 'a'.repeat(64) },
      { name: 'global', report: report(1.2, 20), digest: 'b'.repeat(64) },
    ]).split('\n');
    expect(text).toHaveLength(3);
    expect(text[1]).toBe(
      `karpenter  | 1.50 (max 1.50) | 1.50 (max 1.50) | 1.25, 1.25 | 30.0 | 2.0 | ${'a'.repeat(16)}`,
    );
    // A run measured without the premium says so.
    expect(text[2]).toBe(
      `global     | 1.20 (max 1.20) | 1.20 (max 1.20) | -, - | 20.0 | 2.0 | ${'b'.repeat(16)}`,
    );
  });
});
