import type { SimulationRecord } from '../report/record';
import type { Simulation } from '../world/simulation';
import { checkRecordedExpectations } from './recorded-expectations';
import type { Expectations } from './schema';

type Outcome = SimulationRecord['expectations'][number];

/** The p-th percentile (0..100) of `values`, nearest rank; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A bound's outcome: `value` within `bound`. */
export function within(description: string, value: number, bound: { min?: number; max?: number }): Outcome {
  const held =
    (bound.min === undefined || value >= bound.min) && (bound.max === undefined || value <= bound.max);
  const range = [
    bound.min !== undefined ? `≥ ${bound.min}` : '',
    bound.max !== undefined ? `≤ ${bound.max}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return {
    description: `${description} ${range}`,
    held,
    detail: `was ${Number.isInteger(value) ? value : value.toFixed(4)}`,
  };
}

/** Evaluates a scenario's expectations against the world at the end of the run. */
export function checkExpectations(expect: Expectations, sim: Simulation): Outcome[] {
  const out: Outcome[] = [];
  const store = sim.world.fakes.kube.store;
  const pods = store
    .list('pods')
    .items.filter((p) => !['Succeeded', 'Failed'].includes(String((p.status as { phase?: string })?.phase)));
  const running = sim.world.fakes.ec2
    .listInstances()
    .filter((i) => ['pending', 'running'].includes(i.State?.Name ?? ''));
  const count = (kind: string) => sim.decisions.filter((d) => d.kind === kind).length;
  if (expect.allPodsRunning) {
    const notRunning = pods.filter((p) => (p.status as { phase?: string })?.phase !== 'Running');
    out.push({
      description: 'every pod is running',
      held: notRunning.length === 0,
      detail:
        notRunning.length === 0
          ? `${pods.length} running`
          : `${notRunning.length} not running: ${notRunning
              .slice(0, 5)
              .map((p) => p.metadata.name)
              .join(', ')}`,
    });
  }
  if (expect.noViolations)
    out.push({
      description: 'no invariant is violated',
      held: sim.invariants.violations.length === 0,
      detail: sim.invariants.violations.length === 0 ? 'none' : sim.invariants.violations.join('; '),
    });
  if (expect.nodes) out.push(within('instances running', running.length, expect.nodes));
  if (expect.nodeClaims)
    out.push(within('NodeClaims', store.list('nodeclaims.karpenter.sh').items.length, expect.nodeClaims));
  if (expect.dollarsPerHour) out.push(within('$/h at the end', sim.dollarsPerHour(), expect.dollarsPerHour));
  if (expect.interruptionsSurvived)
    out.push(within('interruptions survived', sim.interruptionsSurvived, expect.interruptionsSurvived));
  if (expect.consolidations) out.push(within('consolidations', count('consolidated'), expect.consolidations));
  if (expect.drifted) out.push(within('drift replacements', count('drifted'), expect.drifted));
  if (expect.timeToCapacityP99 !== undefined) {
    const p99 = percentile(sim.timeToCapacityMs, 99);
    out.push({
      description: `p99 time to capacity ≤ ${expect.timeToCapacityP99 / 1000}s`,
      held: p99 <= expect.timeToCapacityP99,
      detail: `was ${(p99 / 1000).toFixed(1)}s over ${sim.timeToCapacityMs.length} pod(s)`,
    });
  }
  out.push(...checkRecordedExpectations(expect, sim, within));
  return out;
}
