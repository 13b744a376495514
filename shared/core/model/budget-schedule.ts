import { Cron } from 'croner';

/**
 * Disruption budget schedules read as Karpenter reads them. kubernetes-sigs/karpenter
 * pkg/apis/v1/nodepool.go `Budget.IsActive` parses `TZ=UTC <schedule>` with robfig/cron's
 * `ParseStandard`: five fields (minute, hour, day of month, month, day of week) or a descriptor,
 * with `*`, `?`, lists, ranges, steps (`*\/15`, `1-30/2`, and `5/15` meaning `5-59/15`), month
 * names (`jan`–`dec`) and day names (`sun`–`sat`) in any case, day of week 0–6, and day of month
 * and day of week combined with OR when both are restricted. Croner evaluates the schedule; this
 * module first refuses what croner would read but robfig's standard parser does not: Quartz
 * extensions (`L`, `W`, `#`, `+`), day of week 7, seconds or year fields, descriptors other than
 * the lowercase `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`
 * (the NodePool CRD's pattern also refuses robfig's `@every`).
 */

/** A budget schedule podlift (or Karpenter) cannot read, with what is wrong. */
export class BudgetScheduleError extends Error {
  override readonly name = 'BudgetScheduleError';
}

/** A parsed budget schedule. */
export interface BudgetSchedule {
  /** The schedule as written. */
  readonly text: string;
  /** The first firing strictly after `ms` (robfig's `Schedule.Next`), or undefined if none comes. */
  next(ms: number): number | undefined;
}

const DESCRIPTORS = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);
const FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
/** One item of a field's list: `*` or `?`, a value or a range, then an optional step. */
const ITEM = /^(?:[*?]|([0-9a-z]+)(?:-([0-9a-z]+))?)(?:\/([0-9]+))?$/i;

/**
 * Parses a budget schedule.
 * @throws BudgetScheduleError naming the schedule and what robfig/cron's standard parser refuses.
 */
export function parseBudgetSchedule(text: string): BudgetSchedule {
  const fail = (why: string) => new BudgetScheduleError(`schedule ${JSON.stringify(text)}: ${why}`);
  let spec = text.trim();
  if (spec.startsWith('@')) {
    if (!DESCRIPTORS.has(spec)) throw fail(`unrecognized descriptor ${JSON.stringify(spec)}`);
  } else {
    const fields = spec.split(/\s+/);
    if (fields.length !== 5) throw fail(`expected exactly 5 fields, found ${fields.length}`);
    for (const [i, field] of fields.entries()) checkField(field, i, fail);
    spec = fields.map(starred).join(' ');
  }
  let cron: Cron;
  try {
    // No callback: croner schedules nothing, it only computes firings.
    cron = new Cron(spec, { timezone: 'UTC', mode: '5-part', sloppyRanges: true });
  } catch (error) {
    throw fail(error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error));
  }
  return {
    text,
    next: (ms) => cron.nextRun(new Date(ms))?.getTime() ?? undefined,
  };
}

function checkField(field: string, index: number, fail: (why: string) => BudgetScheduleError): void {
  const name = FIELDS[index];
  for (const item of field.split(',')) {
    const m = ITEM.exec(item);
    if (!m) throw fail(`cannot read ${JSON.stringify(item)} in the ${name} field`);
    const [from, to] = [m[1], m[2]].map((value) =>
      value === undefined ? undefined : fieldValue(value, name, fail),
    );
    if (name === 'day of week' && [from, to].some((v) => (v ?? 0) > 6))
      throw fail(`${JSON.stringify(item)} is beyond the day of week's 0-6 (robfig/cron has no 7)`);
    // Croner reads `sun` at the end of a range as 7; robfig/cron reads it as 0 and refuses `mon-sun`.
    // A range always has its start (ITEM), so `to` alone says whether this is one.
    if (to !== undefined && (from as number) > to)
      throw fail(`the range ${JSON.stringify(item)} in the ${name} field begins beyond its end`);
  }
}

/**
 * A field with a `*` or `?` item of step 1 is robfig/cron's starred field (`getRange` keeps the
 * star bit unless the step is above 1), which makes day of month and day of week combine with
 * AND; croner reads `*\/1` or `*,5` as restricted (OR), so such a field is handed over as `*`.
 */
function starred(field: string): string {
  return field.split(',').some((item) => /^[*?](\/0*1)?$/.test(item)) ? '*' : field;
}

/** A number, or a month or day name in the field that has them (robfig/cron `parseIntOrName`). */
function fieldValue(value: string, field: string, fail: (why: string) => BudgetScheduleError): number {
  if (/^[0-9]+$/.test(value)) return Number(value);
  const names = field === 'month' ? MONTHS : field === 'day of week' ? DAYS : [];
  const index = names.indexOf(value.toLowerCase());
  if (index < 0) throw fail(`cannot read ${JSON.stringify(value)} in the ${field} field`);
  return field === 'month' ? index + 1 : index;
}

/**
 * Whether a budget is active at `now` (`Budget.IsActive`): the schedule fires after
 * `now - duration` and not after `now`, i.e. a firing lies in (now − duration, now].
 */
export function budgetActive(schedule: BudgetSchedule, durationMs: number, now: number): boolean {
  return (schedule.next(now - durationMs) ?? Number.POSITIVE_INFINITY) <= now;
}

/**
 * Why a schedule is refused when its NodePool is validated, or undefined when it is fine: what
 * {@link parseBudgetSchedule} refuses, and a schedule that never fires (`0 0 30 2 *`), which
 * robfig/cron reads as always active (its `Next` returns the zero time).
 */
export function budgetScheduleProblem(text: string): string | undefined {
  try {
    const schedule = parseBudgetSchedule(text);
    // Any schedule that fires at all fires within 8 years (29 February included).
    return schedule.next(Date.UTC(2000, 0, 1)) === undefined
      ? `schedule ${JSON.stringify(text)}: never fires`
      : undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
