import { HOURS_PER_MONTH } from '../shared/core/savings/estimate-savings';
import type { PlanJson } from './plan-json';

/**
 * `podlift plan --output table`: the new NodeClaims, a summary, the pods placed on existing
 * Nodes and the unschedulable pods with their reasons. Rendered from the JSON value so both
 * outputs always agree, to the rounding.
 */
export function formatPlanTable(plan: PlanJson, notes: readonly string[] = []): string {
  const out: string[] = [`Plan for ${plan.region}`, ''];
  if (plan.nodeClaims.length === 0) {
    out.push('No new nodes needed.');
  } else {
    // The RESERVATION column only when a NodeClaim goes into a reservation.
    const reserved = plan.nodeClaims.some((c) => c.capacityReservationIds !== undefined);
    out.push(
      ...alignColumns(
        [
          [
            'NODEPOOL',
            'INSTANCE TYPE',
            'CAPACITY',
            'ZONE',
            ...(reserved ? ['RESERVATION'] : []),
            'PODS',
            '$/HOUR',
          ],
          ...plan.nodeClaims.map((c) => [
            c.nodePool,
            c.instanceType,
            c.capacityType,
            c.zone,
            ...(reserved ? [c.capacityReservationIds?.join(',') ?? '-'] : []),
            String(c.pods.length),
            c.hourlyPrice.toFixed(4),
          ]),
        ],
        reserved ? new Set([5, 6]) : new Set([4, 5]),
      ),
    );
  }
  const onExisting = plan.existingNodes.reduce((n, e) => n + e.pods.length, 0);
  const monthly = plan.summary.hourlyCost * HOURS_PER_MONTH;
  out.push(
    '',
    ...alignColumns([
      [
        'Pods placed:',
        `${plan.summary.pods} (${plan.summary.pods - onExisting} on new nodes, ${onExisting} on existing nodes)`,
      ],
      ['New nodes:', String(plan.summary.nodeClaims)],
      [
        'Cost:',
        `$${plan.summary.hourlyCost.toFixed(4)}/hour, $${monthly.toFixed(2)}/month (${HOURS_PER_MONTH} h)`,
      ],
      ['Unschedulable:', String(plan.unschedulable.length)],
    ]),
  );
  if (plan.nodeClaims.some((c) => c.capacityType === 'spot')) {
    out.push('', 'Spot prices are estimates unless given with --spot-prices.');
  }
  if (reservedAny(plan)) {
    out.push(
      '',
      'Reserved capacity is paid for with its reservation: priced at on-demand / 10,000,000, as the',
      'provisioner ranks it, so it is always filled first.',
    );
  }
  if (notes.length > 0) out.push('', 'Notes:', ...notes.flatMap((n) => wrap(`- ${n}`, '  ')));
  if (plan.existingNodes.length > 0) {
    out.push(
      '',
      'Placed on existing nodes:',
      ...alignColumns(
        [['NODE', 'PODS'], ...plan.existingNodes.map((e) => [e.node, String(e.pods.length)])],
        new Set([1]),
      ),
    );
  }
  if (plan.unschedulable.length > 0) {
    out.push(
      '',
      `Unschedulable pods (${plan.unschedulable.length}):`,
      ...alignColumns([['POD', 'REASON'], ...plan.unschedulable.map((u) => [u.pod, u.reason])]),
    );
  }
  return `${out.join('\n')}\n`;
}

function reservedAny(plan: PlanJson): boolean {
  return plan.nodeClaims.some((c) => c.capacityType === 'reserved');
}

/**
 * Pads cells so columns line up, two spaces apart; `right` holds the indexes of numeric
 * columns, aligned right. The last column is never padded, so no line ends in spaces.
 */
export function alignColumns(
  rows: readonly (readonly string[])[],
  right: ReadonlySet<number> = new Set(),
): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => {
        if (right.has(i)) return cell.padStart(widths[i]);
        return i === row.length - 1 ? cell : cell.padEnd(widths[i]);
      })
      .join('  ')
      .trimEnd(),
  );
}

/** Wraps a paragraph at 100 columns, continuation lines indented. */
export function wrap(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
