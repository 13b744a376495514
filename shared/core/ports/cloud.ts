/**
 * The cloud ports: what core needs from AWS (the instance catalog, EC2NodeClass resolution,
 * instances, configuration from SSM). Every port lives in this folder (cloud, cluster and its
 * Lease, Events and access, launch templates, list-watch, publisher, time); shared/aws and
 * shared/kube implement them, each adapter declaring `implements`; tests and the simulator use
 * fakes; a function's composition root wires real ones.
 *
 * Naming, everywhere in podlift:
 * - Our own identifiers spell AWS service acronyms as words (`Ec2`, `Eks`, `Ssm`, `Iam`, `Sqs`):
 *   `Ec2InstanceLauncher`, `EksClusterAccess`, `SsmNodePoolConfig`. Domain vocabulary keeps its
 *   own spelling (Karpenter's kind: `EC2NodeClass`, `EC2NodeClassResolver`), and SDK types are
 *   the SDK's (`EC2Client`).
 * - A bag of constructor or function options is `…Options`; `…Props` is for CDK constructs
 *   only (infra/).
 */
import type { Catalog, InstanceTypeOption } from '../catalog/instance-type';
import type { CapacityType } from '../model/capacity-type';
import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { EC2NodeClassStatus } from '../model/ec2nodeclass-status';
import type { ValidationError } from '../model/errors';
import type { LaunchedInstance, NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';

/** The region's instance types, offerings and prices (live or bundled). */
export interface InstanceCatalogPort {
  /** Cached; refreshed when older than the refresh period. */
  catalog(): Promise<Catalog>;
  /** Forces a refresh now. */
  refresh(): Promise<Catalog>;
}

/** Resolves an EC2NodeClass's selectors to concrete subnets, security groups, AMIs and profile. */
export interface NodeClassResolverPort {
  resolve(nodeClass: EC2NodeClass): Promise<EC2NodeClassStatus>;
  /**
   * Counts a launch into a capacity reservation until the reservations are next described, so a
   * cached free count does not promise the slot again (Karpenter's capacityreservation
   * availabilityCache `MarkLaunched`).
   */
  markLaunched?(reservationId: string): void;
}

/** What launching one NodeClaim needs. */
export interface LaunchRequest {
  readonly nodeClaim: NodeClaim;
  readonly nodePool: NodePool;
  readonly nodeClass: EC2NodeClass;
  readonly resolved: EC2NodeClassStatus;
  /** Cheapest first, at most 60; their offerings' capacity types and zones bound the overrides. */
  readonly options: readonly InstanceTypeOption[];
  /**
   * The reservation a `reserved` launch goes into: its launch template targets it
   * (CapacityReservationSpecification) and, for a Capacity Block, has market type capacity-block.
   */
  readonly capacityReservation?: LaunchReservation;
}

/** A capacity reservation a launch goes into. */
export interface LaunchReservation {
  readonly id: string;
  readonly type: 'default' | 'capacity-block';
  readonly interruptible: boolean;
}

/** Instances: launch (idempotent per NodeClaim), terminate, describe. */
export interface InstanceLauncherPort {
  /**
   * Launches one instance for the NodeClaim. Retried calls for the same NodeClaim return the
   * same instance. @throws InsufficientCapacityError when every offering was refused.
   */
  launch(request: LaunchRequest): Promise<LaunchedInstance>;
  /** Terminates; instances already gone count as terminated. */
  terminate(instanceIds: readonly string[]): Promise<void>;
}

/** NodePools and EC2NodeClasses from a configuration source other than CRDs (SSM). */
export interface NodePoolConfigPort {
  load(): Promise<{
    readonly nodePools: readonly NodePool[];
    readonly nodeClasses: readonly EC2NodeClass[];
    readonly warnings: readonly string[];
    /** What was skipped, one error per parameter, naming it (`location.source`) and its `Kind/name`. */
    readonly errors: readonly ValidationError[];
  }>;
}

/** An instance of the cluster as EC2 reports it: what garbage collection and termination read. */
export interface CloudInstance {
  readonly id: string;
  readonly instanceType: string;
  readonly zone: string;
  /** EC2's state name: pending, running, shutting-down, terminated, stopping, stopped. */
  readonly state: string;
  /**
   * `reserved` for an instance in a capacity reservation it was launched into (targeted,
   * capacity-reservations-only), as Karpenter's instance/types.go `capacityTypeFromInstance`.
   */
  readonly capacityType: CapacityType;
  /** The capacity reservation a `reserved` instance runs in. */
  readonly capacityReservationId?: string;
  /** Epoch ms. */
  readonly launchTime?: number;
  readonly privateDnsName?: string;
  readonly imageId?: string;
  /** The subnet its primary network interface is in (subnet drift). */
  readonly subnetId?: string;
  /** The security groups it runs with (security-group drift). */
  readonly securityGroupIds?: readonly string[];
  /** The partition of a partition placement group it runs in (EC2's Placement.PartitionNumber). */
  readonly partitionNumber?: number;
  readonly tags: Readonly<Record<string, string>>;
  /** `aws:///<zone>/<id>`. */
  readonly providerID: string;
  /** From the `karpenter.sh/nodeclaim` tag. */
  readonly nodeClaim?: string;
  /** From the `karpenter.sh/nodepool` tag. */
  readonly nodePool?: string;
}

/**
 * The category of an EC2 status check (aws/karpenter-provider-aws
 * pkg/providers/instancestatus/instancestatus.go `Category`).
 */
export type InstanceStatusCategory = 'InstanceStatus' | 'SystemStatus' | 'EventStatus' | 'EBSStatus';

/** One check of an instance's status: a status detail, or a scheduled event (always `failed`). */
export interface InstanceStatusCheck {
  readonly category: InstanceStatusCategory;
  /** The detail's name (`reachability`) or the event's code (`instance-retirement`). */
  readonly name: string;
  /** `passed`, `failed`, `insufficient-data` or `initializing`; scheduled events are `failed`. */
  readonly status: string;
  /** Epoch ms the check has failed since (status details only). */
  readonly impairedSince?: number;
}

/** What DescribeInstanceStatus reports about one instance. */
export interface InstanceHealthReport {
  readonly instanceId: string;
  readonly checks: readonly InstanceStatusCheck[];
}

/** The cluster's instances: what exists, by id, by NodeClaim; and terminating them. */
export interface InstanceInventoryPort {
  /** Instances by id; ids EC2 does not know are left out. */
  describe(ids: readonly string[]): Promise<CloudInstance[]>;
  /** Every instance tagged for this cluster that is not terminated. */
  listClusterInstances(): Promise<CloudInstance[]>;
  /** Terminates; instances already gone count as terminated. */
  terminate(ids: readonly string[]): Promise<void>;
  /**
   * The region's instances whose instance or system status is impaired or that have a
   * scheduled event, with their checks (EC2 DescribeInstanceStatus; running instances only).
   */
  unhealthyInstances(): Promise<InstanceHealthReport[]>;
}

/** An instance profile podlift created for the cluster, as IAM lists it. */
export interface InstanceProfileRecord {
  readonly name: string;
  /** Epoch ms. */
  readonly createdAt?: number;
  /** The role it holds, if any (a profile holds at most one). */
  readonly role?: string;
}

/** What happened to a profile garbage collection asked to delete. */
export type ProfileDeletion = 'deleted' | 'gone' | 'not-ours';

/** The instance profiles podlift created for this cluster: listing them and deleting unused ones. */
export interface InstanceProfileInventoryPort {
  /** Every profile under the cluster's IAM path (`/karpenter/<region>/<cluster>/`). */
  listClusterProfiles(): Promise<InstanceProfileRecord[]>;
  /**
   * Removes the profile's role and deletes it, only when it is tagged
   * `kubernetes.io/cluster/<cluster>=owned`; a profile already gone counts as `gone`.
   */
  delete(name: string): Promise<ProfileDeletion>;
}
