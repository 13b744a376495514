import type { EC2NodeClass } from '../../core/model/ec2nodeclass';
import type { NodePool } from '../../core/model/nodepool';

/** NodePools and EC2NodeClasses from one configuration source. */
export interface NodePoolConfigSet {
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
}

/** What SSM contributed: the objects, warnings so far, and which parameter each `Kind/name` came from. */
export interface SsmConfigSet extends NodePoolConfigSet {
  readonly warnings?: readonly string[];
  readonly sources?: ReadonlyMap<string, string>;
}

/** The merged configuration and everything worth telling the operator. */
export interface MergedNodePoolConfig extends NodePoolConfigSet {
  readonly warnings: readonly string[];
}

/**
 * CRDs and SSM parameters together. When a NodePool or EC2NodeClass of the same name exists
 * in both, the CRD wins (it is what `kubectl get` shows and what Karpenter would use) and a
 * warning names the parameter that was ignored. CRDs come first, in their order, then the
 * SSM-only objects in theirs. The warnings end with what each EC2NodeClass kept sets that
 * podlift accepts but does not fully honour (EC2NodeClass.warnings). Pure.
 */
export function mergeWithCrds(crd: NodePoolConfigSet, ssm: SsmConfigSet): MergedNodePoolConfig {
  const warnings = [...(ssm.warnings ?? [])];
  const pick = <T extends { readonly name: string }>(
    kind: string,
    fromCrd: readonly T[],
    fromSsm: readonly T[],
  ) => {
    const names = new Set(fromCrd.map((o) => o.name));
    const merged = [...fromCrd];
    for (const o of fromSsm) {
      if (!names.has(o.name)) {
        merged.push(o);
        continue;
      }
      const parameter = ssm.sources?.get(`${kind}/${o.name}`);
      warnings.push(
        `${kind}/${o.name} is defined both as a CRD and ${parameter === undefined ? 'in SSM' : `by SSM parameter ${parameter}`}; the CRD wins and the parameter is ignored`,
      );
    }
    return merged;
  };
  const nodePools = pick('NodePool', crd.nodePools, ssm.nodePools);
  const nodeClasses = pick('EC2NodeClass', crd.nodeClasses, ssm.nodeClasses);
  // What each EC2NodeClass in use sets that podlift accepts without fully honouring it.
  for (const c of nodeClasses)
    warnings.push(...(c.warnings ?? []).map((w) => `EC2NodeClass/${c.name}: ${w}`));
  return { nodePools, nodeClasses, warnings };
}
