/**
 * Standard five-field cron (minute hour day-of-month month day-of-week, UTC) as Karpenter's
 * disruption budgets use it (robfig/cron's standard parser: `*`, lists, ranges, steps, and the
 * macros @yearly, @monthly, @weekly, @daily, @hourly). Day-of-month and day-of-week combine as
 * in cron: when both are restricted, either may match.
 */

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const RANGES: readonly [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

/** A parsed schedule: the allowed values of each field. */
export interface CronSchedule {
  readonly fields: readonly ReadonlySet<number>[];
  readonly domRestricted: boolean;
  readonly dowRestricted: boolean;
}

/** @throws Error naming the schedule and field when it is not a valid cron expression. */
export function parseCron(text: string): CronSchedule {
  const expanded = MACROS[text.trim()] ?? text.trim();
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5)
    throw new Error(`schedule ${JSON.stringify(text)}: expected 5 fields, got ${parts.length}`);
  const fields = parts.map((part, i) => parseField(part, RANGES[i], text));
  return { fields, domRestricted: parts[2] !== '*', dowRestricted: parts[4] !== '*' };
}

function parseField(part: string, [min, max]: [number, number], text: string): Set<number> {
  const values = new Set<number>();
  for (const item of part.split(',')) {
    const m = /^(\*|\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(item);
    if (!m) throw new Error(`schedule ${JSON.stringify(text)}: cannot read ${JSON.stringify(item)}`);
    const from = m[1] === '*' ? min : Number(m[1]);
    const to = m[2] !== undefined ? Number(m[2]) : m[1] === '*' || m[3] !== undefined ? max : from;
    const step = m[3] !== undefined ? Number(m[3]) : 1;
    if (from < min || to > max || from > to || step < 1) {
      throw new Error(`schedule ${JSON.stringify(text)}: ${JSON.stringify(item)} is outside ${min}-${max}`);
    }
    for (let v = from; v <= to; v += step) values.add(max === 6 && v === 7 ? 0 : v);
  }
  return values;
}

/** Whether the schedule fires at the minute that starts at `ms` (UTC). */
export function firesAt(schedule: CronSchedule, ms: number): boolean {
  const d = new Date(ms);
  const [minute, hour, dom, month, dow] = schedule.fields;
  if (!minute.has(d.getUTCMinutes()) || !hour.has(d.getUTCHours()) || !month.has(d.getUTCMonth() + 1))
    return false;
  const domOk = dom.has(d.getUTCDate());
  const dowOk = dow.has(d.getUTCDay());
  if (schedule.domRestricted && schedule.dowRestricted) return domOk || dowOk;
  return domOk && dowOk;
}

/** Whether `now` lies within `durationMs` after a firing of the schedule (Karpenter's budget window). */
export function withinWindow(schedule: CronSchedule, durationMs: number, now: number): boolean {
  const minute = 60_000;
  const start = Math.floor(now / minute) * minute;
  for (let t = start; t > now - durationMs; t -= minute) if (firesAt(schedule, t)) return true;
  return false;
}
