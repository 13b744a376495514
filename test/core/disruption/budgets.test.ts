import { describe, expect, it } from 'vitest';
import { allowedDisruptions } from '../../../shared/core/disruption/budgets';
import {
  BudgetScheduleError,
  budgetActive,
  budgetScheduleProblem,
  parseBudgetSchedule,
} from '../../../shared/core/model/budget-schedule';
import type { DisruptionBudget } from '../../../shared/core/model/nodepool';
import { nodePool } from '../../../sim/world/builders';

const MON_9AM = Date.UTC(2026, 0, 5, 9, 0); // a Monday
const pool = (budgets: DisruptionBudget[]) => {
  const base = nodePool();
  return { ...base, disruption: { ...base.disruption, budgets } };
};

const HOUR = 3_600_000;
const active = (schedule: string, duration: number, now: number) =>
  budgetActive(parseBudgetSchedule(schedule), duration, now);

// kubernetes-sigs/karpenter pkg/apis/v1/nodepool_budgets_test.go Context("IsActive"), case by case.
describe('budget schedules as Karpenter`s Budget.IsActive reads them', () => {
  const JUNE_15_2000 = Date.UTC(2000, 5, 15, 12, 30, 30);
  it('is active inside the window after a firing: "* * * * *" for 1h', () => {
    expect(active('* * * * *', HOUR, JUNE_15_2000)).toBe(true);
  });
  it('is inactive long after the last firing: "@yearly" for 1h in June', () => {
    expect(active('@yearly', HOUR, JUNE_15_2000)).toBe(false);
  });
  it('reads schedules in UTC: "@daily" for 30m at 23:00 UTC (midnight an hour ahead of UTC)', () => {
    expect(active('@daily', 30 * 60_000, Date.UTC(2000, 4, 31, 23))).toBe(false);
  });
  it('is active when the firing is in the middle of the duration: "@yearly" for 24h, noon on 1 January 1000', () => {
    expect(active('@yearly', 24 * HOUR, Date.UTC(1000, 0, 1, 12))).toBe(true);
  });
  it('is active when the duration is longer than the recurrence: "@daily" for 48h', () => {
    expect(active('@daily', 48 * HOUR, Date.UTC(2024, 0, 7))).toBe(true);
  });
  it('is inactive when the firing comes after the window: "30 6 * * SUN" for 6h at midnight on a Sunday', () => {
    expect(active('30 6 * * SUN', 6 * HOUR, Date.UTC(2024, 0, 7))).toBe(false);
  });
  it('refuses a range that begins beyond its end: "0 0 * * tue-mon"', () => {
    expect(() => parseBudgetSchedule('0 0 * * tue-mon')).toThrow(
      /schedule "0 0 \* \* tue-mon": the range "tue-mon" in the day of week field begins beyond its end/,
    );
  });
  it('counts a firing exactly at now, not one exactly a duration ago (robfig Next is strictly after)', () => {
    expect(active('0 9 * * *', HOUR, MON_9AM)).toBe(true);
    expect(active('0 9 * * *', HOUR, MON_9AM - 1)).toBe(false);
    expect(active('0 9 * * *', HOUR, MON_9AM + HOUR - 1)).toBe(true);
    expect(active('0 9 * * *', HOUR, MON_9AM + HOUR)).toBe(false);
  });
});

// robfig/cron parser.go (ParseStandard: Minute | Hour | Dom | Month | Dow | Descriptor).
describe('budget schedules as robfig/cron`s standard parser reads them', () => {
  const firings = (schedule: string, from: number, n = 3) => {
    const parsed = parseBudgetSchedule(schedule);
    const out: string[] = [];
    for (let t = from, i = 0; i < n; i++) {
      t = parsed.next(t) as number;
      out.push(new Date(t).toISOString().slice(0, 16));
    }
    return out;
  };
  const FRI = Date.UTC(2026, 10, 27); // Friday 27 November 2026, 00:00

  it.each([
    ['0 9 * * mon-fri', ['2026-11-27T09:00', '2026-11-30T09:00', '2026-12-01T09:00']],
    ['0 9 * * MON', ['2026-11-30T09:00', '2026-12-07T09:00', '2026-12-14T09:00']],
    ['0 9 1 jan,Jul *', ['2027-01-01T09:00', '2027-07-01T09:00', '2028-01-01T09:00']],
    ['5/20 9 * * fri', ['2026-11-27T09:05', '2026-11-27T09:25', '2026-11-27T09:45']],
    ['0 9-17/4 * * *', ['2026-11-27T09:00', '2026-11-27T13:00', '2026-11-27T17:00']],
    ['@weekly', ['2026-11-29T00:00', '2026-12-06T00:00', '2026-12-13T00:00']],
    ['@hourly', ['2026-11-27T01:00', '2026-11-27T02:00', '2026-11-27T03:00']],
    ['@monthly', ['2026-12-01T00:00', '2027-01-01T00:00', '2027-02-01T00:00']],
    ['@midnight', ['2026-11-28T00:00', '2026-11-29T00:00', '2026-11-30T00:00']],
    ['@annually', ['2027-01-01T00:00', '2028-01-01T00:00', '2029-01-01T00:00']],
    // Both day fields restricted: either matches (the 1st, or a Monday).
    ['0 9 1 * mon', ['2026-11-30T09:00', '2026-12-01T09:00', '2026-12-07T09:00']],
    ['0 9 */2 * mon', ['2026-11-27T09:00', '2026-11-29T09:00', '2026-11-30T09:00']],
    // A starred field (`*`, `?`, `*/1`, or a list with `*`) leaves the other alone.
    ['0 9 ? * mon', ['2026-11-30T09:00', '2026-12-07T09:00', '2026-12-14T09:00']],
    ['0 9 */1 * mon', ['2026-11-30T09:00', '2026-12-07T09:00', '2026-12-14T09:00']],
    ['0 9 1 * */1', ['2026-12-01T09:00', '2027-01-01T09:00', '2027-02-01T09:00']],
    ['0 9 *,5 * mon', ['2026-11-30T09:00', '2026-12-07T09:00', '2026-12-14T09:00']],
    ['  0 9 * * sun-sat  ', ['2026-11-27T09:00', '2026-11-28T09:00', '2026-11-29T09:00']],
    // Fields split on any run of white space (strings.Fields).
    ['0  9\t* *   fri', ['2026-11-27T09:00', '2026-12-04T09:00', '2026-12-11T09:00']],
    // A range may end where it begins, and mix numbers and names.
    ['0 9 5-5 * *', ['2026-12-05T09:00', '2027-01-05T09:00', '2027-02-05T09:00']],
    ['0 0 1 1-jan *', ['2027-01-01T00:00', '2028-01-01T00:00', '2029-01-01T00:00']],
    ['0 0 1 11-dec *', ['2026-12-01T00:00', '2027-11-01T00:00', '2027-12-01T00:00']],
    ['0 9 * * 0-sat/6', ['2026-11-28T09:00', '2026-11-29T09:00', '2026-12-05T09:00']],
  ])('%s fires at %j', (schedule, expected) => {
    expect(firings(schedule, FRI)).toEqual(expected);
  });

  it.each(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'])(
    'reads the month name %s, in any case',
    (month) => {
      const number = [
        'jan',
        'feb',
        'mar',
        'apr',
        'may',
        'jun',
        'jul',
        'aug',
        'sep',
        'oct',
        'nov',
        'dec',
      ].indexOf(month);
      const first = firings(`0 0 1 ${month.toUpperCase()} *`, Date.UTC(2026, 11, 31), 1)[0];
      expect(first).toBe(new Date(Date.UTC(2027, number, 1)).toISOString().slice(0, 16));
    },
  );

  it.each(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'])('reads the day name %s, in any case', (day) => {
    const number = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].indexOf(day);
    const first = firings(`0 0 * * ${day[0].toUpperCase()}${day.slice(1)}`, Date.UTC(2026, 10, 28, 12), 1)[0];
    // From Saturday 28 November 2026 noon, the next such day.
    expect(first).toBe(new Date(Date.UTC(2026, 10, 29 + number)).toISOString().slice(0, 16));
  });

  it('reads schedules in UTC whatever the time zone of the process', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      expect(firings('0 9 * * *', FRI, 1)).toEqual(['2026-11-27T09:00']);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('says which schedule and which part, with a typed error', () => {
    const error = (() => {
      try {
        parseBudgetSchedule('0 25 * * *');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(BudgetScheduleError);
    expect(error?.name).toBe('BudgetScheduleError');
    expect(error?.message).toBe('schedule "0 25 * * *": Invalid value for hour: 25');
  });

  it.each([
    ['0 9 * *', /expected exactly 5 fields, found 4/],
    ['0 0 9 * * *', /expected exactly 5 fields, found 6/],
    ['@DAILY', /unrecognized descriptor "@DAILY"/],
    ['@every 1h', /unrecognized descriptor "@every 1h"/],
    ['@reboot', /unrecognized descriptor/],
    ['0 9 L * *', /cannot read "L" in the day of month field/],
    ['0 9 15W * *', /cannot read "15W" in the day of month field/],
    ['0 9 * * 1#2', /cannot read "1#2" in the day of week field/],
    ['0 9 * * +mon', /cannot read "\+mon" in the day of week field/],
    ['mon 9 * * *', /cannot read "mon" in the minute field/],
    ['0 9 * mon *', /cannot read "mon" in the month field/],
    ['0 9 * * jan', /cannot read "jan" in the day of week field/],
    ['0 9 * * 7', /"7" is beyond the day of week's 0-6/],
    ['0 9 * * 1-7', /"1-7" is beyond the day of week's 0-6/],
    ['0 9 * * mon-sun', /the range "mon-sun" in the day of week field begins beyond its end/],
    ['0 9 * dec-jan *', /the range "dec-jan" in the month field begins beyond its end/],
    ['0 25 * * *', /schedule "0 25 \* \* \*": .*hour/],
    ['60 * * * *', /minute/],
    ['*/0 * * * *', /stepping/],
    ['0 9 0 * *', /day/],
    ['x1 9 * * *', /cannot read "x1" in the minute field/],
    ['0 9 * * 6-7', /"6-7" is beyond the day of week's 0-6/],
    ['0 9 * * 5-4', /the range "5-4" in the day of week field begins beyond its end/],
  ])('refuses %s', (schedule, message) => {
    expect(() => parseBudgetSchedule(schedule)).toThrow(BudgetScheduleError);
    expect(() => parseBudgetSchedule(schedule)).toThrow(message);
  });

  it('says when a schedule never fires, which robfig/cron would read as always active', () => {
    expect(budgetScheduleProblem('0 9 30 2 *')).toBe('schedule "0 9 30 2 *": never fires');
    expect(budgetScheduleProblem('0 9 29 2 *')).toBeUndefined();
    expect(budgetScheduleProblem('0 9 * * 7')).toMatch(/beyond the day of week/);
    expect(budgetActive(parseBudgetSchedule('0 9 30 2 *'), HOUR, MON_9AM)).toBe(false);
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

  it("reads the schedule of Karpenter's docs, with day names, and lets disruption go outside it", () => {
    const budgets: DisruptionBudget[] = [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }];
    expect(allowedDisruptions(pool(budgets), 'Underutilized', 10, 0, MON_9AM + 3_600_000)).toBe(0);
    expect(allowedDisruptions(pool(budgets), 'Underutilized', 10, 0, MON_9AM + 9 * 3_600_000)).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it('fails closed on a nodes value validation would have refused', () => {
    expect(allowedDisruptions(pool([{ nodes: 'x5%' }]), 'Drifted', 10, 0, MON_9AM)).toBe(0);
    expect(allowedDisruptions(pool([{ nodes: '5%x' }]), 'Drifted', 10, 0, MON_9AM)).toBe(0);
  });

  it('fails closed on a schedule that does not parse, as GetAllowedDisruptions does', () => {
    const budgets: DisruptionBudget[] = [{ nodes: '10', schedule: '0 9 * * 7', duration: '8h' }];
    expect(allowedDisruptions(pool(budgets), 'Drifted', 10, 0, MON_9AM)).toBe(0);
  });
});
