import type { DisruptionBudget, NodeClassRef, NodePool } from '../../../shared/core/model/nodepool';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { Taint } from '../../../shared/core/model/taints';
import { type QuantityInput, resources } from './quantities';

/** Options of {@link nodePool}; every field is optional. */
export interface NodePoolOptions {
  /** Default `default`. */
  readonly name?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** spec.template.metadata.labels. */
  readonly templateLabels?: Readonly<Record<string, string>>;
  readonly templateAnnotations?: Readonly<Record<string, string>>;
  /** Name of the EC2NodeClass referenced; default `default`. */
  readonly nodeClass?: string;
  readonly nodeClassRef?: NodeClassRef;
  readonly requirements?: readonly NodeSelectorRequirement[];
  readonly taints?: readonly Taint[];
  readonly startupTaints?: readonly Taint[];
  readonly expireAfter?: string;
  readonly terminationGracePeriod?: string;
  readonly consolidationPolicy?: NodePool['disruption']['consolidationPolicy'];
  readonly consolidateAfter?: string;
  readonly budgets?: readonly DisruptionBudget[];
  /** spec.limits as quantities ({ cpu: '100', memory: '400Gi', nodes: 10 }). */
  readonly limits?: QuantityInput;
  readonly weight?: number;
  readonly replicas?: number;
}

/**
 * A NodePool with Karpenter's defaults: nodeClassRef to EC2NodeClass `default`, no
 * requirements or taints, expireAfter 720h, WhenEmptyOrUnderutilized after 0s, one budget of
 * 10%, no limits, weight 0.
 */
export function nodePool(options: NodePoolOptions = {}): NodePool {
  return {
    name: options.name ?? 'default',
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    labels: options.labels ?? {},
    annotations: options.annotations ?? {},
    template: {
      labels: options.templateLabels ?? {},
      annotations: options.templateAnnotations ?? {},
      nodeClassRef: options.nodeClassRef ?? {
        group: 'karpenter.k8s.aws',
        kind: 'EC2NodeClass',
        name: options.nodeClass ?? 'default',
      },
      requirements: options.requirements ?? [],
      taints: options.taints ?? [],
      startupTaints: options.startupTaints ?? [],
      expireAfter: options.expireAfter ?? '720h',
      ...(options.terminationGracePeriod !== undefined
        ? { terminationGracePeriod: options.terminationGracePeriod }
        : {}),
    },
    disruption: {
      consolidationPolicy: options.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
      consolidateAfter: options.consolidateAfter ?? '0s',
      budgets: options.budgets ?? [{ nodes: '10%' }],
    },
    limits: resources(options.limits ?? {}),
    weight: options.weight ?? 0,
    ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
  };
}
