import type { DriftVerdict } from '../shared/core/disruption/drift';
import type { ClaimDrift, DriftReplacement } from '../shared/core/disruption/drift-preview';
import { HOURS_PER_MONTH } from '../shared/core/savings/estimate-savings';
import type { Obj } from '../shared/yaml/kubernetes-yaml';
import type { RolloutReport } from './diff-rollout';
import { alignColumns, wrap } from './plan-table';

/** `podlift diff -o json`: the documented output; the table is rendered from it. */
export interface DiffJson {
  readonly region: string;
  /** Where the cluster was read. */
  readonly source: string;
  readonly changed: readonly { readonly kind: string; readonly name: string }[];
  readonly nodeClaims: readonly {
    readonly nodeClaim: string;
    readonly nodePool: string;
    readonly node?: string;
    readonly instanceType?: string;
    readonly zone?: string;
    readonly capacityType?: string;
    readonly hourlyPrice: number;
    /** drifts (because of the change), drifted (already, before it), unchanged, or unknown. */
    readonly drift: 'drifts' | 'drifted' | 'unchanged' | 'unknown';
    /** Karpenter's drift reason, for drifts and drifted. */
    readonly reason?: string;
    /** What drifted, or why it cannot be told. */
    readonly message?: string;
  }[];
  readonly replacement: {
    readonly nodeClaims: readonly {
      readonly nodePool: string;
      readonly instanceType: string;
      readonly capacityType: string;
      readonly zone: string;
      readonly pods: number;
      readonly hourlyPrice: number;
    }[];
    /** Pods the planner placed on nodes that stay. */
    readonly podsOnExistingNodes: number;
    readonly unschedulable: readonly { readonly pod: string; readonly reason: string }[];
    readonly hourlyCostBefore: number;
    readonly hourlyCostAfter: number;
  };
  /** Absent when nothing drifts, with --no-rollout, or without a simulator. */
  readonly rollout?: RolloutReport;
  readonly notes: readonly string[];
}

/** Everything {@link diffToJson} renders. */
export interface DiffResult {
  readonly region: string;
  readonly source: string;
  readonly changed: readonly Obj[];
  readonly rows: readonly ClaimDrift[];
  readonly drifted: readonly ClaimDrift[];
  readonly replacement: DriftReplacement;
  readonly rollout?: RolloutReport;
  readonly notes: readonly string[];
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The JSON value of a diff; money rounded to 1/100 of a cent. */
export function diffToJson(r: DiffResult): DiffJson {
  const drifting = new Set(r.drifted.map((d) => d.nodeClaim));
  const { plan } = r.replacement;
  return {
    region: r.region,
    source: r.source,
    changed: r.changed.map((o) => ({
      kind: String(o.kind),
      name: String((o.metadata as Obj | undefined)?.name ?? ''),
    })),
    nodeClaims: r.rows.map((row) => ({
      nodeClaim: row.nodeClaim,
      nodePool: row.nodePool,
      ...(row.node ? { node: row.node } : {}),
      ...(row.instanceType ? { instanceType: row.instanceType } : {}),
      ...(row.zone ? { zone: row.zone } : {}),
      ...(row.capacityType ? { capacityType: row.capacityType } : {}),
      hourlyPrice: round4(row.price),
      ...verdictFields(drifting.has(row.nodeClaim), row.before, row.after),
    })),
    replacement: {
      nodeClaims: plan.nodeClaims.map((c) => ({
        nodePool: c.nodePool,
        instanceType: c.instanceType,
        capacityType: c.capacityType,
        zone: c.zone,
        pods: c.pods.length,
        hourlyPrice: round4(c.price),
      })),
      podsOnExistingNodes: plan.placements.reduce((n, p) => n + p.pods.length, 0),
      unschedulable: plan.unschedulable.map((u) => ({
        pod: `${u.pod.namespace}/${u.pod.name}`,
        reason: u.reason,
      })),
      hourlyCostBefore: round4(r.replacement.dollarsPerHourBefore),
      hourlyCostAfter: round4(r.replacement.dollarsPerHourAfter),
    },
    ...(r.rollout ? { rollout: r.rollout } : {}),
    notes: r.notes,
  };
}

function verdictFields(
  drifts: boolean,
  before: DriftVerdict,
  after: DriftVerdict,
): Pick<DiffJson['nodeClaims'][number], 'drift' | 'reason' | 'message'> {
  if (drifts && after.kind === 'drifted')
    return { drift: 'drifts', reason: after.drift.reason, message: after.drift.message };
  if (before.kind === 'drifted')
    return { drift: 'drifted', reason: before.drift.reason, message: before.drift.message };
  if (after.kind === 'unknown') return { drift: 'unknown', message: after.why };
  return { drift: 'unchanged' };
}

/** `+4m30s` from virtual ms. */
export function formatOffset(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${sec}s`;
}

/** `podlift diff --output table`, rendered from the JSON value so both outputs agree. */
export function formatDiffTable(d: DiffJson): string {
  const drifts = d.nodeClaims.filter((c) => c.drift === 'drifts');
  const out: string[] = [
    `Diff of ${d.changed.map((c) => `${c.kind}/${c.name}`).join(', ')} against ${d.source} (${d.region} prices)`,
    '',
    `Drift: ${drifts.length} of ${d.nodeClaims.length} NodeClaims would drift`,
  ];
  if (d.nodeClaims.length > 0)
    out.push(
      ...alignColumns(
        [
          ['NODECLAIM', 'NODE', 'NODEPOOL', 'INSTANCE TYPE', 'ZONE', 'CAPACITY', '$/HOUR', 'DRIFT'],
          ...d.nodeClaims.map((c) => [
            c.nodeClaim,
            c.node ?? '-',
            c.nodePool,
            c.instanceType ?? '-',
            c.zone ?? '-',
            c.capacityType ?? '-',
            c.hourlyPrice.toFixed(4),
            c.drift === 'unchanged'
              ? 'no'
              : `${c.drift === 'drifts' ? 'yes' : c.drift === 'drifted' ? 'already' : 'unknown'}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`,
          ]),
        ],
        new Set([6]),
      ),
    );
  const r = d.replacement;
  out.push('', 'Replacement (planned at once, for the pods of the drifted nodes)');
  if (r.nodeClaims.length === 0) out.push('No new nodes: the pods fit on the nodes that stay.');
  else
    out.push(
      ...alignColumns(
        [
          ['NODEPOOL', 'INSTANCE TYPE', 'CAPACITY', 'ZONE', 'PODS', '$/HOUR'],
          ...r.nodeClaims.map((c) => [
            c.nodePool,
            c.instanceType,
            c.capacityType,
            c.zone,
            String(c.pods),
            c.hourlyPrice.toFixed(4),
          ]),
        ],
        new Set([4, 5]),
      ),
    );
  const delta = r.hourlyCostAfter - r.hourlyCostBefore;
  out.push(
    '',
    ...alignColumns([
      ['Pods on nodes that stay:', String(r.podsOnExistingNodes)],
      ['Unschedulable:', String(r.unschedulable.length)],
      [
        'Cost:',
        `$${r.hourlyCostBefore.toFixed(4)}/hour → $${r.hourlyCostAfter.toFixed(4)}/hour (${delta >= 0 ? '+' : '-'}$${Math.abs(delta * HOURS_PER_MONTH).toFixed(2)}/month)`,
      ],
    ]),
  );
  for (const u of r.unschedulable) out.push(...indented(`${u.pod}: ${u.reason}`));
  if (d.rollout) out.push('', ...rolloutLines(d.rollout));
  if (d.notes.length > 0) out.push('', 'Notes:', ...d.notes.flatMap((n) => wrap(`- ${n}`, '  ')));
  return `${out.join('\n')}\n`;
}

function rolloutLines(r: RolloutReport): string[] {
  const out = [
    `Rollout (simulated: the same handlers on the cluster's state): ${r.finished ? `done in ${formatOffset(r.durationMs)}` : `not done after ${formatOffset(r.durationMs)}`}, at most ${r.maxConcurrent} node(s) at a time, ${r.podsMoved.length} pod eviction(s), ${r.replacements.length} NodeClaim(s) launched`,
    ...alignColumns([
      ['NODECLAIM', 'NODE', 'DISRUPTED', 'GONE'],
      ...r.claims.map((c) => [
        c.nodeClaim,
        c.node ?? '-',
        c.disruptedAtMs === undefined ? '-' : `+${formatOffset(c.disruptedAtMs)}`,
        c.goneAtMs === undefined ? '-' : `+${formatOffset(c.goneAtMs)}`,
      ]),
    ]),
  ];
  if (r.replacements.length > 0)
    out.push(
      `Launched: ${r.replacements.map((c) => `${c.instanceType} ${c.capacityType} ${c.zone}`).join(', ')}`,
    );
  out.push(
    `Cost in the simulated region: $${r.dollarsPerHourStart.toFixed(4)}/hour → $${r.dollarsPerHourEnd.toFixed(4)}/hour; ${r.pendingAtEnd} pod(s) pending at the end`,
  );
  if (r.blocks.length > 0) {
    out.push('Held back by:');
    for (const b of r.blocks)
      out.push(
        ...indented(`${b.subject}: ${b.why} (+${formatOffset(b.firstAtMs)} to +${formatOffset(b.lastAtMs)})`),
      );
  }
  for (const note of r.notes) out.push(...wrap(`- ${note}`, '  '));
  return out;
}

/** A wrapped line indented by two spaces, its continuations by four. */
function indented(text: string): string[] {
  return wrap(text, '  ', 98).map((line) => `  ${line}`);
}
