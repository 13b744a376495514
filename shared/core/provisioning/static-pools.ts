import type { InstanceType } from '../catalog/instance-type';
import { LABEL_INSTANCE_TYPE, LABEL_NODEPOOL } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { isStaticNodePool, NODES_LIMIT, type NodePool } from '../model/nodepool';
import { Requirement, Requirements } from '../model/requirements';
import type { NodeClaimPlan } from '../scheduling/types';
import { launchOptions } from './claim-options';

/**
 * Static NodePools (`spec.replicas`, kubernetes-sigs/karpenter pkg/controllers/static/provisioning):
 * a fixed number of nodes whatever the pods, as kOps' InstanceGroup minSize maps to. Each run
 * plans the NodeClaims missing to reach `replicas` — capped by `limits.nodes` — so a lost node is
 * replaced; one NodeClaim per missing node, launched as the cheapest offering its requirements
 * allow. Static pools take no pending pods and are never consolidated.
 */
export function staticPoolPlans(
  pools: readonly NodePool[],
  claims: readonly NodeClaim[],
  instanceTypes: ReadonlyMap<string, readonly InstanceType[]>,
  unavailable: ReadonlySet<string>,
): NodeClaimPlan[] {
  const plans: NodeClaimPlan[] = [];
  for (const pool of pools) {
    if (!isStaticNodePool(pool)) continue;
    const active = claims.filter(
      (c) => c.labels[LABEL_NODEPOOL] === pool.name && !c.deletionTimestamp,
    ).length;
    const cap = pool.limits[NODES_LIMIT] ?? Number.POSITIVE_INFINITY;
    const missing = Math.min(pool.replicas ?? 0, cap) - active;
    if (missing <= 0) continue;
    const requirements = Requirements.from(pool.template.requirements);
    const types = (instanceTypes.get(pool.name) ?? []).filter(
      (t) => !requirements.intersects(t.requirements),
    );
    const options = launchOptions(pool.template.requirements, types, unavailable);
    const [cheapest] = options;
    if (!cheapest) continue;
    const plan: NodeClaimPlan = {
      nodePool: pool.name,
      nodeClass: pool.template.nodeClassRef.name,
      instanceTypeOptions: options,
      instanceType: cheapest.name,
      capacityType: cheapest.capacityType,
      capacityTypes: [...new Set(options.map((o) => o.capacityType))],
      zone: cheapest.zone,
      zones: [...new Set(options.map((o) => o.zone))],
      price: cheapest.price,
      requirements: requirements.with(
        Requirement.of(LABEL_INSTANCE_TYPE, 'In', [...new Set(options.map((o) => o.name))]),
      ),
      labels: {},
      taints: pool.template.taints,
      startupTaints: pool.template.startupTaints,
      pods: [],
      requests: {},
      daemonSetRequests: {},
    };
    for (let i = 0; i < missing; i++) plans.push(plan);
  }
  return plans;
}
