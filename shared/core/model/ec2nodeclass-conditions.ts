import type { EC2NodeClassStatus, ResolvedAmi } from './ec2nodeclass-status';
import type { Condition } from './nodeclaim';
import type { NodeSelectorRequirement } from './requirements';

/** The EC2NodeClass conditions podlift maintains; Ready is their root, as in Karpenter. */
export type NodeClassDependentConditionType =
  | 'SubnetsReady'
  | 'SecurityGroupsReady'
  | 'AMIsReady'
  | 'InstanceProfileReady'
  | 'PlacementGroupReady'
  | 'CapacityReservationsReady';

/** The dependents of Ready, in the order their state is resolved and reported. */
export const NODECLASS_DEPENDENT_CONDITIONS: readonly NodeClassDependentConditionType[] = [
  'SubnetsReady',
  'SecurityGroupsReady',
  'AMIsReady',
  'InstanceProfileReady',
];

/** What resolving one part of an EC2NodeClass found out. */
export type DependentOutcome =
  | { readonly type: NodeClassDependentConditionType; readonly status: 'True' }
  | {
      readonly type: NodeClassDependentConditionType;
      readonly status: 'False' | 'Unknown';
      /** CamelCase, e.g. `SubnetsNotFound`. */
      readonly reason: string;
      /** e.g. `SubnetSelector did not match any Subnets`. */
      readonly message: string;
    };

/**
 * Builds the status conditions of an EC2NodeClass from what resolving its parts found, the way
 * Karpenter's status controller (awslabs/operatorpkg ConditionSet) writes them:
 *
 * - a True dependent has reason = its type and an empty message;
 * - Ready is True (reason `Ready`) when every dependent is True, otherwise False with reason
 *   `UnhealthyDependents` (Unknown with `ReconcilingDependents` when none is False) and a message
 *   listing the unhealthy dependents (`SubnetsReady=False, AMIsReady=Unknown`);
 * - `lastTransitionTime` (RFC 3339, from `now`) is kept from `previous` unless the condition's
 *   status, reason or message changed;
 * - conditions are sorted by type, as kubectl shows them.
 *
 * A dependent missing from `outcomes` is Unknown, `AwaitingReconciliation`.
 */
export function buildNodeClassConditions(
  outcomes: readonly DependentOutcome[],
  previous: readonly Condition[],
  now: number,
): Condition[] {
  const nowRfc3339 = rfc3339(now);
  const byType = new Map(outcomes.map((o) => [o.type, o]));
  // PlacementGroupReady and CapacityReservationsReady are reported only for a node class that
  // selects a placement group or reservations, so the conditions of every other node class stay
  // as they were.
  const optional = (['CapacityReservationsReady', 'PlacementGroupReady'] as const).filter((t) =>
    byType.has(t),
  );
  const types = [...NODECLASS_DEPENDENT_CONDITIONS, ...optional];
  const dependents = types.map((type) => {
    const outcome = byType.get(type) ?? {
      type,
      status: 'Unknown' as const,
      reason: 'AwaitingReconciliation',
      message: 'object is awaiting reconciliation',
    };
    return outcome.status === 'True'
      ? { type, status: 'True' as const, reason: type, message: '' }
      : { type, status: outcome.status, reason: outcome.reason, message: outcome.message };
  });
  const unhealthy = dependents.filter((c) => c.status !== 'True');
  const anyFalse = unhealthy.some((c) => c.status === 'False');
  const ready =
    unhealthy.length === 0
      ? { type: 'Ready', status: 'True' as const, reason: 'Ready', message: '' }
      : {
          type: 'Ready',
          status: anyFalse ? ('False' as const) : ('Unknown' as const),
          reason: anyFalse ? 'UnhealthyDependents' : 'ReconcilingDependents',
          message: unhealthy.map((c) => `${c.type}=${c.status}`).join(', '),
        };
  return [...dependents, ready]
    .map((c) => {
      const before = previous.find((p) => p.type === c.type);
      const unchanged =
        before !== undefined &&
        before.status === c.status &&
        before.reason === c.reason &&
        before.message === c.message;
      return { ...c, lastTransitionTime: unchanged ? before.lastTransitionTime : nowRfc3339 };
    })
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/**
 * The conditions of a status read from the cluster (`EC2NodeClass.status`, untyped), keeping
 * only well-formed entries, so `buildNodeClassConditions` can preserve transition times.
 */
export function conditionsOfStatus(status: Readonly<Record<string, unknown>> | undefined): Condition[] {
  const raw = status?.conditions;
  if (!Array.isArray(raw)) return [];
  const out: Condition[] = [];
  for (const entry of raw as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const c = entry as Record<string, unknown>;
    if (
      typeof c.type === 'string' &&
      (c.status === 'True' || c.status === 'False' || c.status === 'Unknown') &&
      typeof c.lastTransitionTime === 'string'
    ) {
      out.push({
        type: c.type,
        status: c.status,
        reason: typeof c.reason === 'string' ? c.reason : '',
        message: typeof c.message === 'string' ? c.message : '',
        lastTransitionTime: c.lastTransitionTime,
        ...(typeof c.observedGeneration === 'number' ? { observedGeneration: c.observedGeneration } : {}),
      });
    }
  }
  return out;
}

/**
 * Why a node class is not ready, for logs and events: each unhealthy dependent with its reason
 * and message (`SubnetsReady=False SubnetsNotFound: SubnetSelector did not match any Subnets`),
 * or undefined when Ready is True. Karpenter's Ready message only names the dependents.
 */
export function nodeClassNotReadyExplanation(conditions: readonly Condition[]): string | undefined {
  if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) return undefined;
  const types = [...NODECLASS_DEPENDENT_CONDITIONS, 'CapacityReservationsReady', 'PlacementGroupReady'];
  const unhealthy = types
    .map((type) => conditions.find((c) => c.type === type))
    .filter((c): c is Condition => c !== undefined && c.status !== 'True')
    .map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
  return unhealthy.length > 0 ? unhealthy.join('; ') : 'Ready condition is not True';
}

/** The `status` of an EC2NodeClass manifest, as Karpenter writes it. */
export interface EC2NodeClassStatusManifest {
  readonly subnets: ReadonlyArray<{ readonly id: string; readonly zone: string; readonly zoneID?: string }>;
  readonly securityGroups: ReadonlyArray<{ readonly id: string; readonly name?: string }>;
  readonly amis: ReadonlyArray<{
    readonly id: string;
    readonly name?: string;
    readonly deprecated?: boolean;
    readonly requirements: readonly NodeSelectorRequirement[];
  }>;
  /** null when no profile resolved: a JSON merge patch then removes a stale one. */
  readonly instanceProfile: string | null;
  /** Present when the node class has capacityReservationSelectorTerms (or just lost them). */
  readonly capacityReservations?: ReadonlyArray<{
    readonly availabilityZone: string;
    readonly endTime?: string;
    readonly id: string;
    readonly instanceMatchCriteria: string;
    readonly instanceType: string;
    readonly ownerID: string;
    readonly reservationType: string;
    readonly interruptible: boolean;
    readonly state: string;
  }>;
  readonly conditions: readonly Condition[];
}

/**
 * The CRD `status` object for a resolved EC2NodeClass, shaped as Karpenter's v1 API serialises
 * it (`zoneID`, `name`, `deprecated` and requirement `values` left out when empty), ready to be
 * sent as a JSON merge patch of the status subresource. Every list is present, empty when its
 * selector matched nothing, and `instanceProfile` is null when it did not resolve, so that a
 * merge patch replaces what an earlier resolution wrote instead of leaving it in place.
 */
export function toStatusManifest(status: EC2NodeClassStatus): EC2NodeClassStatusManifest {
  return {
    subnets: status.subnets.map((s) => ({
      id: s.id,
      zone: s.zone,
      ...(s.zoneID === undefined || s.zoneID === '' ? {} : { zoneID: s.zoneID }),
    })),
    securityGroups: status.securityGroups.map((g) => ({
      id: g.id,
      ...(g.name === undefined || g.name === '' ? {} : { name: g.name }),
    })),
    amis: status.amis.map(amiManifest),
    instanceProfile: status.instanceProfile ?? null,
    ...(status.capacityReservations === undefined
      ? {}
      : {
          // Karpenter's fields, without the free count it keeps in memory only.
          capacityReservations: status.capacityReservations.map(
            ({ availableInstanceCount: _free, endTime, ...r }) => ({
              availabilityZone: r.availabilityZone,
              ...(endTime === undefined ? {} : { endTime }),
              id: r.id,
              instanceMatchCriteria: r.instanceMatchCriteria,
              instanceType: r.instanceType,
              ownerID: r.ownerID,
              reservationType: r.reservationType,
              interruptible: r.interruptible,
              state: r.state,
            }),
          ),
        }),
    conditions: status.conditions.map((c) => ({ ...c })),
  };
}

function amiManifest(ami: ResolvedAmi) {
  return {
    id: ami.id,
    ...(ami.name === undefined || ami.name === '' ? {} : { name: ami.name }),
    ...(ami.deprecated ? { deprecated: true } : {}),
    requirements: sortRequirementsForStatus(ami.requirements).map((r) => ({
      key: r.key,
      operator: r.operator,
      ...(r.values === undefined || r.values.length === 0 ? {} : { values: [...r.values] }),
    })),
  };
}

/** Karpenter orders an AMI's requirements in status by key length, then key. */
export function sortRequirementsForStatus(
  requirements: readonly NodeSelectorRequirement[],
): NodeSelectorRequirement[] {
  return [...requirements].sort((a, b) =>
    a.key.length !== b.key.length ? a.key.length - b.key.length : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
