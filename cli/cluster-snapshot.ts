import type { V1PodDisruptionBudget } from '@kubernetes/client-node';
import { z } from 'zod';
import { validationErrorFromZod } from '../shared/core/manifests/schema-issues';
import { isValidationError, type ValidationLocation } from '../shared/core/model/errors';
import type { NodeClaim } from '../shared/core/model/nodeclaim';
import type { PodDisruptionBudget } from '../shared/core/state/cluster-state';
import { nodeClaimFromObject } from '../shared/kube/nodeclaim-manifest';
import { toPodDisruptionBudget } from '../shared/kube/pod-disruption-budgets';
import type { Obj } from '../shared/yaml/kubernetes-yaml';
import { type PlanInput, type PlanReadOptions, readPlanInput, readPlanObjects } from './plan-input';

/**
 * One cluster's state in core types, read from a live cluster or a `kubectl get -o yaml` dump:
 * what `plan`, `savings` and `diff` decide from. Existing Nodes carry the pods bound to them
 * (DaemonSet pods included); `pods` are the pending ones.
 */
export interface ClusterSnapshot extends PlanInput {
  /** Where it was read: the dump's file name, or `context "prod" (https://…)`. */
  readonly source: string;
  readonly nodeClaims: readonly NodeClaim[];
  readonly podDisruptionBudgets: readonly PodDisruptionBudget[];
  /**
   * The NodePool, EC2NodeClass and NodeClaim objects as read, for what the typed views leave
   * out (the drift hashes `diff` compares live in annotations and specs).
   */
  readonly manifests: {
    readonly nodePools: readonly Obj[];
    readonly nodeClasses: readonly Obj[];
    readonly nodeClaims: readonly Obj[];
  };
}

const intOrString = z.union([z.int().nonnegative(), z.string().regex(/^\d+%?$/)]);
/** The fields of a policy/v1 PodDisruptionBudget the core view reads, checked before it reads them. */
const PDB_OBJECT = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
  spec: z
    .looseObject({
      selector: z
        .looseObject({
          matchLabels: z.record(z.string(), z.string()).optional(),
          matchExpressions: z
            .array(
              z.looseObject({
                key: z.string(),
                operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
                values: z.array(z.string()).optional(),
              }),
            )
            .optional(),
        })
        .optional(),
      minAvailable: intOrString.optional(),
      maxUnavailable: intOrString.optional(),
      unhealthyPodEvictionPolicy: z.string().optional(),
    })
    .optional(),
  status: z
    .looseObject({
      disruptionsAllowed: z.int().optional(),
      currentHealthy: z.int().optional(),
      desiredHealthy: z.int().optional(),
      expectedPods: z.int().optional(),
    })
    .optional(),
});

/** A cluster's state from a dump's text (a v1 List or multi-document YAML). Pure. */
export function clusterSnapshotFromYaml(text: string, source: string): ClusterSnapshot {
  const collector = new SnapshotExtras(source);
  const input = readPlanInput(text, source, collector.options());
  return collector.finish(input);
}

/** A cluster's state from objects already decoded (a live read's lists). Pure. */
export function clusterSnapshotFromObjects(objects: Iterable<unknown>, source: string): ClusterSnapshot {
  const collector = new SnapshotExtras(source);
  const input = readPlanObjects(objects, source, collector.options());
  return collector.finish(input);
}

/** What the snapshot reads beside the plan input: NodeClaims, PDBs and the raw manifests. */
class SnapshotExtras {
  private readonly nodeClaims: NodeClaim[] = [];
  private readonly budgets: PodDisruptionBudget[] = [];
  private readonly warnings: string[] = [];
  private readonly manifests = { nodePools: [] as Obj[], nodeClasses: [] as Obj[], nodeClaims: [] as Obj[] };

  constructor(private readonly source: string) {}

  options(): PlanReadOptions {
    return {
      clusterState: true,
      otherKinds: {
        NodeClaim: (obj, location) => this.nodeClaim(obj, location),
        PodDisruptionBudget: (obj, location) => this.budget(obj, location),
      },
      onObject: (kind, obj) => {
        if (kind === 'NodePool') this.manifests.nodePools.push(obj);
        else if (kind === 'EC2NodeClass') this.manifests.nodeClasses.push(obj);
      },
    };
  }

  /**
   * A NodeClaim that does not parse is reported and left out: another controller may have
   * written it, and one odd object must not keep the rest of the cluster from being read.
   */
  private nodeClaim(obj: Obj, location: ValidationLocation): void {
    this.manifests.nodeClaims.push(obj);
    try {
      this.nodeClaims.push(nodeClaimFromObject(obj));
    } catch (e) {
      this.skip(e, location);
    }
  }

  private budget(obj: Obj, location: ValidationLocation): void {
    try {
      const parsed = PDB_OBJECT.safeParse(obj);
      if (!parsed.success) throw validationErrorFromZod(parsed.error, obj, location, '');
      this.budgets.push(toPodDisruptionBudget(parsed.data as V1PodDisruptionBudget));
    } catch (e) {
      this.skip(e, location);
    }
  }

  private skip(e: unknown, location: ValidationLocation): void {
    const why = isValidationError(e) ? e.at(location).message : `${location.object}: ${String(e)}`;
    this.warnings.push(`skipping an object that does not parse: ${why}`);
  }

  finish(input: PlanInput): ClusterSnapshot {
    return {
      ...input,
      warnings: [...input.warnings, ...this.warnings],
      source: this.source,
      nodeClaims: this.nodeClaims,
      podDisruptionBudgets: this.budgets,
      manifests: this.manifests,
    };
  }
}
