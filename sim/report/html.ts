import type { ClusterSample, SimulationRecord } from './record';
import { escapeHtml, formatDuration, timeChart, timelineChart } from './svg-chart';

/**
 * The figures the report's summary shows, from a record. Quantiles are nearest-rank; $/h
 * figures are over the samples.
 */
export interface ReportSummary {
  readonly pods: number;
  readonly timeToCapacityP50Ms: number | undefined;
  readonly timeToCapacityP99Ms: number | undefined;
  readonly peakDollarsPerHour: number;
  readonly finalDollarsPerHour: number;
  /** Time-weighted mean $/h over the run. */
  readonly meanDollarsPerHour: number;
  readonly consolidationSavingsPerHour: number;
  readonly interruptionsSurvived: number;
  readonly peakNodes: number;
  readonly meanCpuUtilisation: number | undefined;
  readonly meanMemoryUtilisation: number | undefined;
  readonly expectationsHeld: number;
  readonly expectations: number;
}

/** Summarises a record for the report's header. */
export function summarise(record: SimulationRecord): ReportSummary {
  const sorted = [...record.timeToCapacityMs].sort((a, b) => a - b);
  const quantile = (q: number) =>
    sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const samples = record.samples;
  const weights = samples.map((s, i) => (samples[i + 1]?.at ?? Math.max(record.durationMs, s.at)) - s.at);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const weighted = (value: (s: ClusterSample) => number) =>
    totalWeight > 0
      ? samples.reduce((sum, s, i) => sum + value(s) * (weights[i] as number), 0) / totalWeight
      : samples[0]
        ? value(samples[0])
        : 0;
  // Utilisation only means something while there are nodes to use.
  const withNodes = samples.filter((s) => nodeCount(s) > 0);
  const mean = (value: (s: ClusterSample) => number) =>
    withNodes.length === 0 ? undefined : withNodes.reduce((sum, s) => sum + value(s), 0) / withNodes.length;
  return {
    pods: sorted.length,
    timeToCapacityP50Ms: quantile(0.5),
    timeToCapacityP99Ms: quantile(0.99),
    peakDollarsPerHour: Math.max(0, ...samples.map((s) => s.dollarsPerHour)),
    finalDollarsPerHour: samples.at(-1)?.dollarsPerHour ?? 0,
    meanDollarsPerHour: weighted((s) => s.dollarsPerHour),
    consolidationSavingsPerHour: record.decisions.reduce((sum, d) => sum + (d.savedDollarsPerHour ?? 0), 0),
    interruptionsSurvived: record.interruptionsSurvived,
    peakNodes: Math.max(0, ...samples.map(nodeCount)),
    meanCpuUtilisation: mean((s) => s.cpuUtilisation),
    meanMemoryUtilisation: mean((s) => s.memoryUtilisation),
    expectationsHeld: record.expectations.filter((e) => e.held).length,
    expectations: record.expectations.length,
  };
}

function nodeCount(sample: ClusterSample): number {
  return Object.values(sample.nodesByType).reduce((a, b) => a + b, 0);
}

const dollars = (n: number) => `$${n.toFixed(n >= 100 ? 0 : n >= 1 ? 2 : 4)}`;
const percent = (n: number | undefined) => (n === undefined ? '—' : `${Math.round(n * 100)} %`);
const seconds = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

/**
 * One self-contained HTML page for a simulation run: the summary figures, charts of nodes by
 * instance type (stacked), pending pods, $/h, cpu and memory utilisation and a decisions
 * timeline, all inline SVG with inline CSS, then the decisions and expectations as tables. It
 * loads nothing (no script, font, image or stylesheet from anywhere), so it opens offline.
 */
export function renderHtmlReport(record: SimulationRecord): string {
  const summary = summarise(record);
  const times = record.samples.map((s) => s.at);
  const types = [...new Set(record.samples.flatMap((s) => Object.keys(s.nodesByType)))].sort();
  const duration = record.durationMs;
  const charts = [
    timeChart({
      id: 'nodes',
      title: 'Nodes by instance type',
      times,
      durationMs: duration,
      stacked: true,
      series: types.map((type) => ({
        name: type,
        values: record.samples.map((s) => s.nodesByType[type] ?? 0),
      })),
      formatY: (v) => String(Math.round(v * 10) / 10),
    }),
    timeChart({
      id: 'pending',
      title: 'Pending pods',
      times,
      durationMs: duration,
      series: [{ name: 'pending pods', values: record.samples.map((s) => s.pendingPods) }],
      formatY: (v) => String(Math.round(v * 10) / 10),
    }),
    timeChart({
      id: 'cost',
      title: 'Cost, $/hour',
      times,
      durationMs: duration,
      series: [{ name: '$/h', values: record.samples.map((s) => s.dollarsPerHour) }],
      formatY: (v) => `$${Number(v.toPrecision(3))}`,
    }),
    timeChart({
      id: 'utilisation',
      title: 'Requested ÷ allocatable',
      times,
      durationMs: duration,
      yMax: 1,
      series: [
        { name: 'cpu', values: record.samples.map((s) => s.cpuUtilisation) },
        { name: 'memory', values: record.samples.map((s) => s.memoryUtilisation) },
      ],
      formatY: (v) => `${Math.round(v * 100)} %`,
    }),
    timelineChart(
      'decisions',
      'Decisions',
      record.decisions.map((d) => ({ at: d.at, lane: d.actor, kind: d.kind, label: d.message })),
      duration,
    ),
  ];
  const figures: [string, string][] = [
    ['simulated time', formatDuration(duration)],
    ['pods that ran', String(summary.pods)],
    ['time to capacity p50', seconds(summary.timeToCapacityP50Ms)],
    ['time to capacity p99', seconds(summary.timeToCapacityP99Ms)],
    ['peak nodes', String(summary.peakNodes)],
    [
      '$/h peak / mean / final',
      `${dollars(summary.peakDollarsPerHour)} / ${dollars(summary.meanDollarsPerHour)} / ${dollars(summary.finalDollarsPerHour)}`,
    ],
    ['saved by consolidation', `${dollars(summary.consolidationSavingsPerHour)}/h`],
    [
      'cpu / memory requested ÷ allocatable',
      `${percent(summary.meanCpuUtilisation)} / ${percent(summary.meanMemoryUtilisation)}`,
    ],
    ['interruptions survived', String(summary.interruptionsSurvived)],
    ['expectations held', `${summary.expectationsHeld} of ${summary.expectations}`],
  ];
  const title = `podlift simulation: ${record.scenario}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body><main>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<dl class="summary">${figures.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join('')}</dl>`,
    ...charts,
    '<h2>Expectations</h2>',
    expectationsTable(record),
    '<h2>Decisions</h2>',
    decisionsTable(record),
    '</main></body></html>',
    '',
  ].join('\n');
}

function expectationsTable(record: SimulationRecord): string {
  if (record.expectations.length === 0) return '<p class="empty">the scenario states no expectations</p>';
  const rows = record.expectations.map(
    (e) =>
      `<tr class="${e.held ? 'held' : 'failed'}"><td>${e.held ? '✓ held' : '✗ failed'}</td><td>${escapeHtml(e.description)}</td><td>${escapeHtml(e.detail ?? '')}</td></tr>`,
  );
  return `<table class="expectations"><thead><tr><th>result</th><th>expectation</th><th>detail</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function decisionsTable(record: SimulationRecord): string {
  if (record.decisions.length === 0) return '<p class="empty">no decisions recorded</p>';
  const rows = record.decisions.map(
    (d) =>
      `<tr><td>${formatDuration(d.at)}</td><td>${escapeHtml(d.actor)}</td><td>${escapeHtml(d.kind)}</td><td>${escapeHtml(d.message)}${d.savedDollarsPerHour !== undefined ? ` <span class="saved">(saves ${escapeHtml(dollars(d.savedDollarsPerHour))}/h)</span>` : ''}</td></tr>`,
  );
  return `<table class="decisions"><thead><tr><th>time</th><th>actor</th><th>kind</th><th>what happened</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

// System fonts only: the report must render offline, with nothing fetched.
const STYLE = `
:root{color-scheme:light;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:940px;margin:0 auto;padding:24px 16px 48px}h1{font-size:22px;margin:0 0 16px}h2{font-size:17px;margin:28px 0 8px}
.summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:8px;margin:0 0 20px}
.summary div{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.summary dt{color:var(--muted);font-size:12px}.summary dd{margin:2px 0 0;font-size:16px;font-weight:600;font-variant-numeric:tabular-nums}
.chart{margin:0 0 18px;border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.chart figcaption{font-weight:600;margin-bottom:4px}.chart svg{width:100%;height:auto;display:block}
.grid{stroke:#eaeef2;stroke-width:1}.axis{stroke:#8c959f;stroke-width:1}.tick,.lane{fill:var(--muted);font-size:11px}
.line{fill:none;stroke-width:2}.area{stroke:#fff;stroke-width:.5;opacity:.9}.mark{stroke:#fff;stroke-width:1}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:var(--muted)}
.key i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.empty{color:var(--muted);font-style:italic}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}td:first-child{white-space:nowrap;font-variant-numeric:tabular-nums}
tr.failed td:first-child{color:#cf222e;font-weight:600}tr.held td:first-child{color:#1a7f37}.saved{color:#1a7f37}
`;
