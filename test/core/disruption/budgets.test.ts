import { describe, expect, it } from 'vitest';
import { allowedDisruptions } from '../../../shared/core/disruption/budgets';
import { firesAt, parseCron, withinWindow } from '../../../shared/core/disruption/cron';
import type { DisruptionBudget } from '../../../shared/core/model/nodepool';
import { nodePool } from '../../../sim/world/builders';

const MON_9AM = Date.UTC(2026, 0, 5, 9, 0); // a Monday
const pool = (budgets: DisruptionBudget[]) => {
  const base = nodePool();
  return { ...base, disruption: { ...base.disruption, budgets } };
};

describe('cron schedules of disruption budgets', () => {
  it.each([
    ['0 9 * * 1-5', MON_9AM, true],
    ['0 9 * * 6,0', MON_9AM, false],
    ['*/15 * * * *', MON_9AM + 15 * 60_000, true],
    ['*/15 * * * *', MON_9AM + 16 * 60_000, false],
    ['@daily', Date.UTC(2026, 0, 5), true],
    ['0 9 5 * 0', MON_9AM, true], // day of month 5 matches although Monday is not Sunday
  ])('%s fires at %s: %s', (schedule, at, fires) => {
    expect(firesAt(parseCron(schedule), at)).toBe(fires);
  });

  it('is active for the duration after a firing, and not after it', () => {
    const daily = parseCron('0 9 * * *');
    expect(withinWindow(daily, 8 * 3_600_000, MON_9AM + 7 * 3_600_000)).toBe(true);
    expect(withinWindow(daily, 8 * 3_600_000, MON_9AM + 8 * 3_600_000 + 60_000)).toBe(false);
  });

  it('names the schedule and the bad part when it cannot read one', () => {
    expect(() => parseCron('0 25 * * *')).toThrow(/schedule "0 25 \* \* \*": "25" is outside 0-23/);
    expect(() => parseCron('0 9 * *')).toThrow(/expected 5 fields/);
  });
});

describe('allowedDisruptions', () => {
  it('takes a percentage of the pool rounded up, minus the nodes already disrupting', () => {
    expect(allowedDisruptions(pool([{ nodes: '10%' }]), 'Empty', 11, 0, MON_9AM)).toBe(2);
    expect(allowedDisruptions(pool([{ nodes: '10%' }]), 'Empty', 11, 2, MON_9AM)).toBe(0);
    expect(allowedDisruptions(pool([{ nodes: '3' }]), 'Drifted', 100, 1, MON_9AM)).toBe(2);
  });

  it('applies the most restrictive active budget for the reason; a budget of 0 stops it', () => {
    const budgets: DisruptionBudget[] = [{ nodes: '5' }, { nodes: '0', reasons: ['Underutilized'] }];
    expect(allowedDisruptions(pool(budgets), 'Underutilized', 10, 0, MON_9AM)).toBe(0);
    expect(allowedDisruptions(pool(budgets), 'Empty', 10, 0, MON_9AM)).toBe(5);
  });

  it('counts a scheduled budget only inside its window', () => {
    const budgets: DisruptionBudget[] = [
      { nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' },
      { nodes: '10' },
    ];
    expect(allowedDisruptions(pool(budgets), 'Drifted', 10, 0, MON_9AM + 3_600_000)).toBe(0);
    expect(allowedDisruptions(pool(budgets), 'Drifted', 10, 0, MON_9AM - 3_600_000)).toBe(10);
  });
});
