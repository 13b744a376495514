import type { DecisionEntry, SimulationRecord } from '../report/record';
import { percentile } from '../scenario/expectations';

/** `+00:02:05`: virtual time since the start. */
export function clockOf(ms: number): string {
  const s = Math.floor(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `+${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** One log line: virtual time, who acted, what happened. */
export function logLine(entry: DecisionEntry): string {
  const level =
    entry.kind === 'violation' || entry.kind === 'error'
      ? 'ERROR'
      : entry.kind === 'warn'
        ? 'WARN '
        : 'INFO ';
  return `${clockOf(entry.at)} ${level} ${entry.actor.padEnd(14)} ${entry.message}`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const dollars = (n: number) => `$${n.toFixed(3)}/h`;

/**
 * The end-of-run summary: time to capacity per pod (p50, p99), $/h over time, requested ÷
 * allocatable at the busiest sample, consolidation savings, interruptions survived, and each
 * expectation with whether it held.
 */
export function summaryText(record: SimulationRecord, wallMs: number): string {
  const lines: string[] = [];
  const ttc = record.timeToCapacityMs;
  lines.push(
    '',
    `── summary: ${record.scenario} (${clockOf(record.durationMs).slice(1)} simulated in ${seconds(wallMs)} wall) ──`,
  );
  lines.push(
    `time to capacity per pod: p50 ${seconds(percentile(ttc, 50))}, p99 ${seconds(percentile(ttc, 99))} over ${ttc.length} pod(s)`,
  );
  const step = Math.max(1, Math.ceil(record.samples.length / 10));
  const costs = record.samples.filter((_, i) => i % step === 0 || i === record.samples.length - 1);
  lines.push(
    `$/h over time: ${costs.map((s) => `${clockOf(s.at).slice(4)} ${dollars(s.dollarsPerHour)}`).join(' · ')}`,
  );
  const busiest = [...record.samples].sort((a, b) => b.runningPods - a.runningPods || a.at - b.at)[0];
  if (busiest)
    lines.push(
      `requested ÷ allocatable at the busiest sample (${clockOf(busiest.at)}, ${busiest.runningPods} pods): cpu ${busiest.cpuUtilisation.toFixed(2)}, memory ${busiest.memoryUtilisation.toFixed(2)}`,
    );
  const savings = record.decisions.reduce((sum, d) => sum + (d.savedDollarsPerHour ?? 0), 0);
  const consolidations = record.decisions.filter((d) => d.kind === 'consolidated').length;
  lines.push(`consolidation: ${consolidations} decision(s), ${dollars(savings)} saved`);
  lines.push(`interruptions survived: ${record.interruptionsSurvived}`);
  for (const e of record.expectations)
    lines.push(`${e.held ? '✓' : '✗'} ${e.description}${e.detail ? ` (${e.detail})` : ''}`);
  return `${lines.join('\n')}\n`;
}
