import { describe, expect, it } from 'vitest';
import { formatSimFigures, type SimFigures } from '../../bench/sim/figures';

const figures = (over: { p50?: number; p99?: number; simulated?: number; running?: number; cpu?: number }) =>
  ({
    pendingToFleet: {
      bursts: 6,
      delaysMs: [1000, 1000, 4000],
      p50Ms: over.p50 ?? 1000,
      p99Ms: over.p99 ?? 4000,
    },
    scaleOut: {
      pods: 1000,
      running: over.running ?? 1000,
      simulatedMs: over.simulated ?? 49_000,
      wallMs: 20_000,
      nodes: 334,
      cpu: over.cpu ?? 0.78,
      memory: 0.93,
      dollarsPerHour: 13.89,
    },
  }) satisfies SimFigures;

/** The "met" column of each row, by the row's first words. */
function marks(f: SimFigures): string[] {
  const table = formatSimFigures(f)[2].split('\n').slice(2);
  return table.map((row) => row.trim().split(/\s{2,}/)[3]);
}

describe('formatSimFigures', () => {
  it('marks each figure against its target', () => {
    expect(marks(figures({}))).toStrictEqual(['met', 'met', 'met', 'MISSED', 'met']);
    expect(marks(figures({ p50: 2500, p99: 5001, simulated: 121_000, cpu: 0.9 }))).toStrictEqual([
      'MISSED',
      'MISSED',
      'MISSED',
      'met',
      'met',
    ]);
  });

  it('misses the scale-out when not every pod ran, and says how many did', () => {
    const text = formatSimFigures(figures({ running: 990, simulated: 60_000 })).join('\n');
    expect(marks(figures({ running: 990, simulated: 60_000 }))[2]).toBe('MISSED');
    expect(text).toContain('60 s (990 ran)');
  });
});
