/**
 * Just enough of Prometheus' client model for the watcher: counters and histograms with
 * labels, rendered in the text exposition format (version 0.0.4) that /metrics serves.
 */

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

/** Content-Type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A metric family that can render itself. */
export interface MetricFamily {
  readonly name: string;
  render(): string;
}

/** A monotonically increasing count per label set. */
export class Counter implements MetricFamily {
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
    /** Label sets rendered as 0 before anything is counted, so dashboards see the series at once. */
    initial: readonly Labels[] = [],
  ) {
    for (const labels of initial) this.inc(labels, 0);
  }

  /** Adds `by` (default 1) to the series of `labels`. */
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }

  /** The current value of one series (0 when never counted). */
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} counter`];
    const entries = this.values.size > 0 ? [...this.values.values()] : [{ labels: {}, value: 0 }];
    for (const { labels, value } of entries) lines.push(`${this.name}${renderLabels(labels)} ${value}`);
    return lines.join('\n');
  }
}

/** Observations counted into cumulative buckets, per label set. */
export class Histogram implements MetricFamily {
  private readonly series = new Map<
    string,
    { labels: Labels; buckets: number[]; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    private readonly help: string,
    /** Upper bounds, ascending; `+Inf` is implied. */
    private readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = labelKey(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    this.bounds.forEach((bound, i) => {
      if (value <= bound) entry.buckets[i]++;
    });
    entry.sum += value;
    entry.count++;
  }

  /** Observations so far for `labels`. */
  count(labels: Labels): number {
    return this.series.get(labelKey(labels))?.count ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const { labels, buckets, sum, count } of this.series.values()) {
      this.bounds.forEach((bound, i) => {
        lines.push(`${this.name}_bucket${renderLabels({ ...labels, le: String(bound) })} ${buckets[i]}`);
      });
      lines.push(`${this.name}_bucket${renderLabels({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${renderLabels(labels)} ${sum}`);
      lines.push(`${this.name}_count${renderLabels(labels)} ${count}`);
    }
    return lines.join('\n');
  }
}

/** The exposition of several families, newline-terminated as the format requires. */
export function renderMetrics(families: readonly MetricFamily[]): string {
  return `${families.map((family) => family.render()).join('\n')}\n`;
}

function labelKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

function renderLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
