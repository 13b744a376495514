import type { InstanceType } from '../catalog/instance-type';
import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../model/drift-hash';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import {
  ANNOTATIONS,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_NODECLASS,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  RESERVED_CAPACITY_LABELS,
} from '../model/labels';
import type { LaunchedInstance } from '../model/nodeclaim';
import { isStaticNodePool, type NodePool } from '../model/nodepool';
import type { MetadataPatch, NewNodeClaim, NodeClaimStatusUpdate } from '../ports/cluster';
import type { NodeClaimPlan } from '../scheduling/types';
import { nodeClaimRequirements } from './claim-options';

/**
 * What the provisioner writes on a NodeClaim: everything at creation (the intent, before any
 * instance exists), and what the launch found out, as Karpenter's provisioner
 * (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaim.go
 * `NodeClaim.ToNodeClaim`) and cloud provider (aws/karpenter-provider-aws
 * pkg/cloudprovider/cloudprovider.go `instanceToNodeClaim`) write them.
 */

/**
 * The NodeClaim for a plan: the NodePool's template labels and annotations, the labels the
 * plan's requirements pin to one value, `karpenter.sh/nodepool`, the drift hashes, and a spec
 * with the plan's requirements and its instance type options and their capacity types
 * ({@link nodeClaimRequirements}), requests, taints and the pool's expiry and termination grace
 * period.
 */
export function newNodeClaim(
  plan: NodeClaimPlan,
  pool: NodePool,
  nodeClass: EC2NodeClass,
  extraAnnotations: Readonly<Record<string, string>> = {},
): NewNodeClaim {
  return {
    nodePool: pool.name,
    ...(pool.uid ? { nodePoolUid: pool.uid } : {}),
    labels: {
      ...pool.template.labels,
      ...plan.requirements.labels(),
      ...plan.labels,
      [LABEL_NODEPOOL]: pool.name,
      [LABEL_NODECLASS]: nodeClass.name,
    },
    annotations: {
      ...pool.template.annotations,
      [ANNOTATIONS.nodePoolHash]: nodePoolHash(pool),
      [ANNOTATIONS.nodePoolHashVersion]: DRIFT_HASH_VERSION,
      [ANNOTATIONS.nodeClassHash]: nodeClassHash(nodeClass),
      [ANNOTATIONS.nodeClassHashVersion]: DRIFT_HASH_VERSION,
      ...extraAnnotations,
    },
    spec: {
      nodeClassRef: pool.template.nodeClassRef,
      // ToNodeClaim writes the options only for dynamic NodePools; a static NodePool's NodeClaim
      // launches from its pool's requirements (nodeclaimtemplate.go: "For static we let
      // cloudprovider.Create()").
      requirements: (isStaticNodePool(pool)
        ? plan.requirements
        : nodeClaimRequirements(plan)
      ).toSelectorRequirements(),
      resources: { requests: plan.requests },
      taints: plan.taints,
      startupTaints: plan.startupTaints,
      expireAfter: pool.template.expireAfter,
      ...(pool.template.terminationGracePeriod
        ? { terminationGracePeriod: pool.template.terminationGracePeriod }
        : {}),
    },
  };
}

/** What a launch is recorded as: labels and annotations, and the status with Launched=True. */
export interface LaunchRecord {
  readonly metadata: MetadataPatch;
  readonly status: NodeClaimStatusUpdate;
}

/**
 * The record of a launch: the instance type's single-valued labels (arch, os, instance-*), the
 * labels the launch knows (tenancy, placement group), the instance type, zone and capacity type it launched as, its price (`podlift.dev/hourly-price`,
 * what consolidation compares) and instance profile; status providerID, image, capacity and
 * allocatable from the instance type, and condition Launched.
 */
export function launchRecord(
  instance: LaunchedInstance,
  instanceType: InstanceType | undefined,
  price: number | undefined,
  instanceProfile: string | undefined,
): LaunchRecord {
  // A type's requirements list its reservations; only a reserved launch's own labels name one
  // (Karpenter's cloudprovider.go instanceToNodeClaim leaves ReservedCapacityLabels out otherwise).
  const typeLabels = instanceType ? instanceType.requirements.labels() : {};
  for (const key of RESERVED_CAPACITY_LABELS) delete typeLabels[key];
  return {
    metadata: {
      labels: {
        ...typeLabels,
        ...instance.labels,
        [LABEL_INSTANCE_TYPE]: instance.instanceType,
        [LABEL_ZONE]: instance.zone,
        [LABEL_CAPACITY_TYPE]: instance.capacityType,
      },
      annotations: {
        ...(price !== undefined ? { [ANNOTATIONS.hourlyPrice]: String(price) } : {}),
        ...(instanceProfile ? { [ANNOTATIONS.instanceProfile]: instanceProfile } : {}),
      },
    },
    status: {
      providerID: instance.providerID,
      ...(instance.imageID ? { imageID: instance.imageID } : {}),
      ...(instanceType ? { capacity: instanceType.capacity, allocatable: instanceType.allocatable } : {}),
      conditions: [{ type: 'Launched', status: 'True' }],
    },
  };
}

/** The price of the offering an instance launched as, from its instance type. */
export function launchedPrice(
  instance: LaunchedInstance,
  instanceType: InstanceType | undefined,
): number | undefined {
  return instanceType?.offerings.find(
    (o) => o.zone === instance.zone && o.capacityType === instance.capacityType,
  )?.price;
}
