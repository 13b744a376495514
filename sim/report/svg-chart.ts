/**
 * Inline SVG charts for the HTML report: drawn here as strings, so the report needs no script,
 * no library and no network to show them. Every chart carries its data in `data-*` attributes
 * (values per series, sample times) so tests can check what was drawn against what was recorded.
 */

/** Escapes text for HTML and SVG content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** One series of a chart: a value per sample time. */
export interface ChartSeries {
  readonly name: string;
  readonly values: readonly number[];
}

/** Options of {@link timeChart}. */
export interface TimeChartOptions {
  /** The chart's `data-chart` id. */
  readonly id: string;
  readonly title: string;
  /** Sample times, virtual ms, ascending; one per value of each series. */
  readonly times: readonly number[];
  /** The x axis spans 0 … durationMs. */
  readonly durationMs: number;
  readonly series: readonly ChartSeries[];
  /** Stack the series as areas (nodes by type) rather than drawing lines. */
  readonly stacked?: boolean;
  /** The y axis's top; default a round number above the largest value. */
  readonly yMax?: number;
  readonly formatY: (value: number) => string;
}

/** Colours that stay apart for the common case of a handful of instance types. */
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
] as const;

const WIDTH = 880;
const HEIGHT = 220;
const LEFT = 64;
const RIGHT = 16;
const TOP = 12;
const BOTTOM = 28;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/** `h:mm:ss` or `m:ss` of virtual milliseconds. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `value` (1 for nothing to show). */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * A chart of values over virtual time, as step lines (a sampled state holds until the next
 * sample) or stacked step areas, with axes, a legend and a `<title>` per series for hovering.
 */
export function timeChart(options: TimeChartOptions): string {
  const { times, series, durationMs, stacked = false } = options;
  const span = Math.max(durationMs, times.at(-1) ?? 0, 1);
  const tops = stacked
    ? times.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
    : series.flatMap((s) => s.values);
  const yMax = options.yMax ?? niceCeiling(Math.max(0, ...tops));
  const x = (t: number) => round(LEFT + (t / span) * PLOT_W);
  const y = (v: number) => round(TOP + PLOT_H - (Math.min(v, yMax) / yMax) * PLOT_H);
  const end = x(span);
  const stepPath = (values: readonly number[]) =>
    values
      .map((v, i) => {
        const next = i + 1 < times.length ? x(times[i + 1] as number) : end;
        return `${i === 0 ? 'M' : 'L'}${x(times[i] as number)},${y(v)}H${next}`;
      })
      .join('');
  const below = times.map(() => 0);
  const shapes = series.map((s, index) => {
    const color = PALETTE[index % PALETTE.length];
    const data = `data-series="${escapeHtml(s.name)}" data-values="${s.values.join(',')}"`;
    const title = `<title>${escapeHtml(s.name)}</title>`;
    if (!stacked || times.length === 0)
      return `<path class="line" ${data} d="${stepPath(s.values) || `M${LEFT},${y(0)}`}" stroke="${color}">${title}</path>`;
    const upper = s.values.map((v, i) => (below[i] as number) + v);
    const lower = [...below];
    for (let i = 0; i < upper.length; i++) below[i] = upper[i] as number;
    const back = lower
      .map((v, i) => ({ v, i }))
      .reverse()
      .map(({ v, i }) => {
        const next = i + 1 < times.length ? x(times[i + 1] as number) : end;
        return `L${next},${y(v)}H${x(times[i] as number)}`;
      })
      .join('');
    return `<path class="area" ${data} d="${stepPath(upper)}${back}Z" fill="${color}">${title}</path>`;
  });
  const legend = series
    .map(
      (s, index) =>
        `<span class="key"><i style="background:${PALETTE[index % PALETTE.length]}"></i>${escapeHtml(s.name)}</span>`,
    )
    .join('');
  return [
    `<figure class="chart" data-chart="${escapeHtml(options.id)}" data-times="${times.join(',')}">`,
    `<figcaption>${escapeHtml(options.title)}</figcaption>`,
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(options.title)}">`,
    axes(span, yMax, options.formatY),
    ...shapes,
    '</svg>',
    series.length > 1 || stacked ? `<div class="legend">${legend}</div>` : '',
    series.length === 0 ? '<p class="empty">nothing recorded</p>' : '',
    '</figure>',
  ].join('');
}

/** Gridlines that land on round values: a top of 5 gets 0, 1 … 5; a top of 2, 0, 0.5 … 2. */
export function tickCount(yMax: number): number {
  const mantissa = yMax / 10 ** Math.floor(Math.log10(yMax));
  return Math.abs(mantissa - 2) < 1e-9 ? 4 : 5;
}

function axes(span: number, yMax: number, formatY: (value: number) => string): string {
  const parts: string[] = [];
  const ticks = tickCount(yMax);
  for (let i = 0; i <= ticks; i++) {
    const v = (yMax * i) / ticks;
    const py = round(TOP + PLOT_H - (i / ticks) * PLOT_H);
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${py}" y2="${py}"/>`,
      `<text class="tick" x="${LEFT - 6}" y="${py + 4}" text-anchor="end">${escapeHtml(formatY(v))}</text>`,
    );
  }
  for (let i = 0; i <= 6; i++) {
    const px = round(LEFT + (i / 6) * PLOT_W);
    parts.push(
      `<text class="tick" x="${px}" y="${HEIGHT - 8}" text-anchor="middle">${formatDuration((span * i) / 6)}</text>`,
    );
  }
  parts.push(
    `<line class="axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H}"/>`,
  );
  return parts.join('');
}

/** One mark on the decisions timeline. */
export interface TimelineMark {
  readonly at: number;
  /** The row: who acted. */
  readonly lane: string;
  /** The mark's colour group: what was done. */
  readonly kind: string;
  readonly label: string;
}

/** Decisions over virtual time, one row per actor, a mark per decision with its line as a tooltip. */
export function timelineChart(
  id: string,
  title: string,
  marks: readonly TimelineMark[],
  durationMs: number,
): string {
  const lanes = [...new Set(marks.map((m) => m.lane))];
  const kinds = [...new Set(marks.map((m) => m.kind))];
  const laneH = 26;
  const height = TOP + Math.max(1, lanes.length) * laneH + BOTTOM;
  const span = Math.max(durationMs, ...marks.map((m) => m.at), 1);
  const x = (t: number) => round(LEFT + 60 + (t / span) * (PLOT_W - 60));
  const rows = lanes.map((lane, i) => {
    const cy = TOP + i * laneH + laneH / 2;
    return `<line class="grid" x1="${LEFT + 60}" x2="${WIDTH - RIGHT}" y1="${cy}" y2="${cy}"/><text class="lane" x="${LEFT + 52}" y="${cy + 4}" text-anchor="end">${escapeHtml(lane)}</text>`;
  });
  const dots = marks.map((m) => {
    const cy = TOP + lanes.indexOf(m.lane) * laneH + laneH / 2;
    const color = PALETTE[kinds.indexOf(m.kind) % PALETTE.length];
    return `<rect class="mark" data-kind="${escapeHtml(m.kind)}" data-at="${m.at}" x="${x(m.at) - 4}" y="${cy - 7}" width="8" height="14" rx="2" fill="${color}"><title>${escapeHtml(`${formatDuration(m.at)} ${m.lane} ${m.kind}: ${m.label}`)}</title></rect>`;
  });
  const ticks = Array.from({ length: 7 }, (_, i) => {
    const t = (span * i) / 6;
    return `<text class="tick" x="${x(t)}" y="${height - 8}" text-anchor="middle">${formatDuration(t)}</text>`;
  });
  const legend = kinds
    .map(
      (kind, index) =>
        `<span class="key"><i style="background:${PALETTE[index % PALETTE.length]}"></i>${escapeHtml(kind)}</span>`,
    )
    .join('');
  return [
    `<figure class="chart timeline" data-chart="${escapeHtml(id)}">`,
    `<figcaption>${escapeHtml(title)}</figcaption>`,
    `<svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(title)}">`,
    ...rows,
    ...dots,
    ...ticks,
    '</svg>',
    `<div class="legend">${legend}</div>`,
    marks.length === 0 ? '<p class="empty">no decisions recorded</p>' : '',
    '</figure>',
  ].join('');
}
