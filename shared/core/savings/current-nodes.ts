import type { Catalog } from '../catalog/instance-type';
import type { CapacityType } from '../model/capacity-type';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../model/labels';
import type { StateNode } from '../state/cluster-state';

/**
 * What a cluster's nodes cost today, priced from the catalog: on-demand at the region's price,
 * spot at the zone's spot price (the bundled estimate or `--spot-prices`).
 */

/** One of today's nodes and its price. */
export interface PricedNode {
  readonly name: string;
  readonly instanceType: string;
  readonly capacityType: CapacityType;
  /** How the capacity type was learned: a label, or assumed on-demand when no label says. */
  readonly capacityTypeFrom: string;
  readonly zone?: string;
  /** USD per hour. */
  readonly price: number;
  /** Pods that count toward the comparison (not DaemonSet or mirror pods). */
  readonly pods: number;
}

/** A node left out of the comparison, with its pods, and why. */
export interface ExcludedNode {
  readonly name: string;
  readonly reason: string;
}

/** Today's nodes, split into the ones priced and the ones left out. */
export interface CurrentNodes {
  readonly priced: readonly PricedNode[];
  readonly excluded: readonly ExcludedNode[];
  /** USD per hour of the priced nodes. */
  readonly cost: number;
}

/** `eks.amazonaws.com/capacityType` (managed node groups): ON_DEMAND, SPOT, CAPACITY_BLOCK. */
export const LABEL_EKS_CAPACITY_TYPE = 'eks.amazonaws.com/capacityType';
/** A spot label some provisioners (kOps, eksctl self-managed groups) set: `spot`. */
export const LABEL_LIFECYCLE = 'node.kubernetes.io/lifecycle';

/** Control-plane nodes: not podlift's to replace, so not compared. */
const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

/** The node's capacity type and the label that said so. */
export function nodeCapacityType(labels: Readonly<Record<string, string>>): {
  capacityType: CapacityType;
  from: string;
} {
  const karpenter = labels[LABEL_CAPACITY_TYPE];
  if (karpenter === 'spot' || karpenter === 'on-demand' || karpenter === 'reserved') {
    return { capacityType: karpenter, from: LABEL_CAPACITY_TYPE };
  }
  const eks = labels[LABEL_EKS_CAPACITY_TYPE];
  if (eks === 'SPOT') return { capacityType: 'spot', from: LABEL_EKS_CAPACITY_TYPE };
  if (eks === 'ON_DEMAND') return { capacityType: 'on-demand', from: LABEL_EKS_CAPACITY_TYPE };
  if (labels[LABEL_LIFECYCLE] === 'spot') return { capacityType: 'spot', from: LABEL_LIFECYCLE };
  return { capacityType: 'on-demand', from: 'assumed (no capacity-type label)' };
}

/**
 * Prices each node from its labels. A node without an instance type the catalog prices
 * (Fargate, another cloud's), a control-plane node, or a reserved one (its price is sunk) is
 * left out, and so are its pods: the comparison is between the same pods on both sides.
 */
export function priceCurrentNodes(nodes: readonly StateNode[], catalog: Catalog): CurrentNodes {
  const priced: PricedNode[] = [];
  const excluded: ExcludedNode[] = [];
  for (const node of nodes) {
    const type = node.labels[LABEL_INSTANCE_TYPE];
    const zone = node.labels[LABEL_ZONE];
    const { capacityType, from } = nodeCapacityType(node.labels);
    const role = CONTROL_PLANE_LABELS.find((l) => l in node.labels);
    let reason: string | undefined;
    let price: number | undefined;
    if (role) reason = `control-plane node (${role})`;
    else if (type === undefined) reason = `no ${LABEL_INSTANCE_TYPE} label`;
    else if (capacityType === 'reserved') reason = 'reserved capacity: already paid for';
    else {
      price = capacityType === 'spot' ? spotPrice(catalog, type, zone) : catalog.prices.onDemand.get(type);
      if (price === undefined) {
        reason = `${type} has no ${capacityType} price in ${catalog.region}`;
      }
    }
    if (reason !== undefined || price === undefined || type === undefined) {
      excluded.push({ name: node.name, reason: reason ?? 'not priced' });
      continue;
    }
    priced.push({
      name: node.name,
      instanceType: type,
      capacityType,
      capacityTypeFrom: from,
      ...(zone !== undefined ? { zone } : {}),
      price,
      pods: comparedPods(node).length,
    });
  }
  return { priced, excluded, cost: priced.reduce((sum, n) => sum + n.price, 0) };
}

/** The node's pods the comparison moves: not DaemonSet pods (they follow nodes) nor mirror pods. */
export function comparedPods(node: StateNode): StateNode['pods'] {
  return node.pods.filter(
    (p) => p.ownerKind !== 'DaemonSet' && p.annotations?.['kubernetes.io/config.mirror'] === undefined,
  );
}

/** The zone's spot price; without a zone, the lowest of the region (what the zone is unknown to). */
function spotPrice(catalog: Catalog, type: string, zone: string | undefined): number | undefined {
  const byZone = catalog.prices.spot.get(type);
  if (!byZone) return undefined;
  if (zone !== undefined) return byZone.get(zone);
  const prices = [...byZone.values()];
  return prices.length > 0 ? Math.min(...prices) : undefined;
}
