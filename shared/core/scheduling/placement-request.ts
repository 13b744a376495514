import type { Pod } from '../model/pod';
import type { DomainRestriction } from './domains';
import type { PodGroup } from './pod-groups';
import type { PlacementProfile } from './relaxation';
import type { GroupTopology } from './topology';
import type { UnschedulableReason } from './unschedulable-reason';

/** One step of placing a group: the pods still pending and the rules they are placed under. */
export interface PlacementRequest {
  readonly group: PodGroup;
  readonly profile: PlacementProfile;
  readonly topology: GroupTopology;
  /** The group's pods not placed yet, in order; a step places a prefix of them. */
  readonly pending: readonly Pod[];
  /** At most this many pods in this step: 1 when topology counts must see each placement. */
  readonly bulk: number;
  /** Topology keys a new or planned node must be pinned on (see TopologyDomains.pinKeys). */
  readonly pinKeys: ReadonlySet<string>;
  readonly restrictions: ReadonlyMap<string, DomainRestriction>;
}

/** What a step achieved: how many pods it placed, or why it placed none. */
export type Attempt = { readonly placed: number } | { readonly reason: UnschedulableReason };
