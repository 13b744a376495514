import type { PlanJson } from './plan-json';

/**
 * Notes on a plan that list prices alone do not tell: when burstable instance types carry a
 * large share of the cost, and when the plan relies on types the bundled catalog may place in
 * zones where they are not sold. They inform; the plan is not changed, since neither is a
 * preference the user expressed.
 */

/** From this share of the hourly cost on burstable types on, the plan says so. */
export const BURSTABLE_NOTE_SHARE = 0.2;

/** Burstable families: t2, t3, t3a, t4g (instance category `t`). */
function isBurstable(instanceType: string): boolean {
  return /^t\d/.test(instanceType);
}

/**
 * Types sold in few zones of a region: the HPC families (a single zone in most regions) and
 * bare-metal and high-memory (u-*) sizes, whose zones vary. The bundled catalog has no
 * per-zone availability and offers every type in every zone.
 */
function soldInFewZones(instanceType: string): boolean {
  return (
    /^hpc/.test(instanceType) ||
    /^u[0-9a-z-]*-/.test(instanceType) ||
    instanceType.endsWith('.metal') ||
    /\.metal-/.test(instanceType)
  );
}

/** Shares of the hourly cost, by instance type, of the types matching `pick`, largest first. */
function sharesOf(plan: PlanJson, pick: (type: string) => boolean): { type: string; share: number }[] {
  const total = plan.nodeClaims.reduce((s, c) => s + c.hourlyPrice, 0);
  if (total <= 0) return [];
  const byType = new Map<string, number>();
  for (const c of plan.nodeClaims) {
    if (pick(c.instanceType)) byType.set(c.instanceType, (byType.get(c.instanceType) ?? 0) + c.hourlyPrice);
  }
  return [...byType.entries()]
    .map(([type, cost]) => ({ type, share: cost / total }))
    .sort((a, b) => b.share - a.share || (a.type < b.type ? -1 : 1));
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** The notes for a plan made from the bundled catalog, one paragraph each (empty when there is nothing to say). */
export function planNotes(plan: PlanJson): string[] {
  const notes: string[] = [];
  const burstable = sharesOf(plan, isBurstable);
  const burstableShare = burstable.reduce((s, b) => s + b.share, 0);
  if (burstableShare >= BURSTABLE_NOTE_SHARE) {
    const types = burstable
      .slice(0, 3)
      .map((b) => b.type)
      .join(', ');
    notes.push(
      `Burstable types (${types}${burstable.length > 3 ? ', …' : ''}) carry ${percent(burstableShare)} of the cost. ` +
        'Their list price holds only while a node stays below its baseline cpu; in unlimited mode, the ' +
        'default for t3, t3a and t4g, cpu above the baseline is charged as surplus credits. To plan without ' +
        'them, add to the NodePool: requirements: [{key: karpenter.k8s.aws/instance-category, operator: NotIn, values: [t]}].',
    );
  }
  const fewZones = sharesOf(plan, soldInFewZones);
  if (fewZones.length > 0) {
    const zonesByType = new Map<string, Set<string>>();
    for (const c of plan.nodeClaims) {
      if (!soldInFewZones(c.instanceType)) continue;
      const zones = zonesByType.get(c.instanceType) ?? new Set<string>();
      zones.add(c.zone);
      zonesByType.set(c.instanceType, zones);
    }
    const listed = fewZones
      .slice(0, 3)
      .map(
        (f) =>
          `${f.type} (${percent(f.share)} of the cost, in ${[...zonesByType.get(f.type)!].sort().join(', ')})`,
      )
      .join('; ');
    notes.push(
      `${listed}${fewZones.length > 3 ? '; …' : ''}: sold in few zones of a region, but the bundled catalog has no ` +
        'per-zone availability and plans them in any zone. A launch there may find no capacity and fall back ' +
        'to the next option; the live catalog (in the cluster) knows the zones.',
    );
  }
  return notes;
}
