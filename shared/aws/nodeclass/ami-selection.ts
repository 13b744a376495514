import type { ResolvedAmi } from '../../core/model/ec2nodeclass-status';
import type { NodeSelectorRequirement } from '../../core/model/requirements';

/**
 * Karpenter's compareAMI: a non-deprecated AMI beats a deprecated one, then the newer creation
 * date wins, then the name that sorts last. Negative when `a` is preferred.
 */
export function compareAmis(a: ResolvedAmi, b: ResolvedAmi): number {
  if (a.deprecated !== b.deprecated) return a.deprecated ? 1 : -1;
  const at = creationTime(a);
  const bt = creationTime(b);
  if (at !== bt) return at > bt ? -1 : 1;
  const an = a.name ?? '';
  const bn = b.name ?? '';
  if (an !== bn) return an > bn ? -1 : 1;
  return 0;
}

/**
 * Keeps, for each distinct set of requirements, the one AMI Karpenter would use (see
 * `compareAmis`), so an x86_64 and an arm64 AMI both stay while older x86_64 ones go.
 */
export function bestPerRequirementSet(candidates: readonly ResolvedAmi[]): ResolvedAmi[] {
  const best = new Map<string, ResolvedAmi>();
  for (const ami of candidates) {
    const key = requirementSetKey(ami.requirements);
    const current = best.get(key);
    if (current === undefined || compareAmis(ami, current) < 0) best.set(key, ami);
  }
  return [...best.values()];
}

/**
 * The order of status.amis: newest first (Karpenter's AMIs.Sort), with deprecated AMIs after
 * every non-deprecated one so a launch that takes the first compatible AMI avoids them; ties by id.
 */
export function orderAmis(amis: readonly ResolvedAmi[]): ResolvedAmi[] {
  return [...amis].sort((a, b) => {
    if (a.deprecated !== b.deprecated) return a.deprecated ? 1 : -1;
    const at = creationTime(a);
    const bt = creationTime(b);
    if (at !== bt) return at > bt ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/** A canonical key for a set of requirements: order of requirements and of values does not matter. */
export function requirementSetKey(requirements: readonly NodeSelectorRequirement[]): string {
  return requirements
    .map((r) => `${r.key}|${r.operator}|${[...(r.values ?? [])].sort().join(',')}`)
    .sort()
    .join(';');
}

function creationTime(ami: ResolvedAmi): number {
  const t = ami.creationDate === undefined ? Number.NaN : Date.parse(ami.creationDate);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}
