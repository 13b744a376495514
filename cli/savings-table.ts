import { alignColumns, wrap } from './plan-table';
import type { SavingsJson } from './savings-json';

/**
 * `podlift savings` as a table: today's nodes and podlift's grouped by instance type and
 * capacity type, the bound, the saving and what constrains it. Rendered from the JSON value
 * so both outputs agree to the rounding.
 */
export function formatSavingsTable(s: SavingsJson): string {
  const pools = s.podlift.defaultNodePool
    ? `Karpenter's default NodePool ${s.podlift.nodePools.join(', ')} (the cluster has none)`
    : `NodePool${s.podlift.nodePools.length === 1 ? '' : 's'} ${s.podlift.nodePools.join(', ')}`;
  const out: string[] = [`Savings for ${s.source} (${s.region}), ${s.pods} pods compared`, ''];
  out.push(
    ...alignColumns(
      [
        ['', 'NODES', '$/HOUR', '$/MONTH', ''],
        ['Today', String(s.today.nodes.length), usd(s.today.hourlyCost, 4), usd(s.today.monthlyCost, 2), ''],
        [
          'podlift',
          String(s.podlift.nodes.length),
          usd(s.podlift.hourlyCost, 4),
          usd(s.podlift.monthlyCost, 2),
          pools,
        ],
        [
          'Lower bound',
          '',
          usd(s.lowerBound.hourlyCost, 4),
          usd(s.lowerBound.monthlyCost, 2),
          s.lowerBound.converged
            ? 'no plan for these pods costs less'
            : 'no plan costs less (column generation stopped early: the bound may be loose)',
        ],
      ],
      new Set([1, 2, 3]),
    ),
  );
  const saving =
    s.saving.hourly >= 0
      ? `Saving: ${usd(s.saving.hourly, 4)}/hour, ${usd(s.saving.monthly, 2)}/month (${s.saving.percent} %).`
      : `No saving: podlift's plan costs ${usd(-s.saving.hourly, 4)}/hour more than today's nodes.`;
  out.push(
    '',
    saving,
    `No plan saves more than ${usd(s.saving.atMostHourly, 4)}/hour (${usd(s.saving.atMostMonthly, 2)}/month).`,
    '',
    'Today:',
    ...indent(groupRows(s.today.nodes)),
    '',
    'podlift:',
    ...indent(groupRows(s.podlift.nodes)),
  );
  if (s.today.excludedNodes.length > 0) {
    out.push('', 'Left out, with their pods:');
    out.push(...indent(alignColumns(s.today.excludedNodes.map((e) => [e.name, e.reason]))));
  }
  if (s.constraints.length > 0) {
    out.push('', 'What constrains the saving most:');
    for (const c of s.constraints) {
      const more = c.count > c.pods.length ? `, and ${c.count - c.pods.length} more` : '';
      out.push(
        ...wrap(`${c.kind} (${c.count} pods: ${c.pods.join(', ')}${more}): ${c.detail}`, '    ').map(
          (l, i) => (i === 0 ? `  ${l}` : l),
        ),
      );
    }
  }
  const notes: string[] = [];
  if (s.pendingPods > 0) notes.push(`pending pods (${s.pendingPods} today) are in neither cost.`);
  if (s.today.nodes.some((n) => n.capacityTypeFrom.startsWith('assumed'))) {
    notes.push('Nodes without a capacity-type label are priced on-demand.');
  }
  if (notes.length > 0) out.push('', ...notes.flatMap((n) => wrap(`Note: ${n}`, '  ')));
  return `${out.join('\n')}\n`;
}

/** Nodes counted by instance type, capacity type and price, dearest first. */
function groupRows(
  nodes: readonly { instanceType: string; capacityType: string; hourlyPrice: number }[],
): string[] {
  const groups = new Map<string, { type: string; capacity: string; price: number; count: number }>();
  for (const n of nodes) {
    const key = `${n.instanceType}|${n.capacityType}|${n.hourlyPrice}`;
    const g = groups.get(key) ?? {
      type: n.instanceType,
      capacity: n.capacityType,
      price: n.hourlyPrice,
      count: 0,
    };
    g.count++;
    groups.set(key, g);
  }
  if (groups.size === 0) return ['none'];
  const rows = [...groups.values()]
    .sort((a, b) => b.price * b.count - a.price * a.count || a.type.localeCompare(b.type))
    .map((g) => [`${g.count} ×`, g.type, g.capacity, `${usd(g.price, 4)}/h each`]);
  return alignColumns(rows, new Set([0]));
}

function indent(lines: readonly string[]): string[] {
  return lines.map((l) => `  ${l}`);
}

function usd(n: number, digits: number): string {
  return `$${n.toFixed(digits)}`;
}
