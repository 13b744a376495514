import * as z from 'zod';

/**
 * Which label keys and values a NodePool may use, as Karpenter's NodePool CRD checks them
 * (OpenAPI patterns and CEL rules): qualified-name keys and values, and the restricted
 * domains Karpenter and the AWS provider reserve for themselves.
 */

// Patterns from the CRD.
/** A qualified name (apimachinery IsQualifiedName): an optional DNS subdomain and "/", then a name. */
export const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Labels of the karpenter.k8s.aws domain a NodePool may use (the AWS provider's allow list). */
const ALLOWED_KARPENTER_AWS_LABELS = new Set(
  [
    'instance-tenancy',
    'ec2nodeclass',
    'capacity-reservation-id',
    'capacity-reservation-type',
    'capacity-reservation-interruptible',
    'instance-encryption-in-transit-supported',
    'instance-category',
    'instance-hypervisor',
    'instance-family',
    'instance-generation',
    'instance-local-nvme',
    'instance-size',
    'instance-cpu',
    'instance-cpu-manufacturer',
    'instance-cpu-sustained-clock-speed-mhz',
    'instance-memory',
    'instance-ebs-bandwidth',
    'instance-network-bandwidth',
    'instance-gpu-name',
    'instance-gpu-manufacturer',
    'instance-gpu-count',
    'instance-gpu-memory',
    'instance-accelerator-name',
    'instance-accelerator-manufacturer',
    'instance-accelerator-count',
    'instance-capability-flex',
    'placement-group-id',
    'placement-group-partition',
  ].map((name) => `karpenter.k8s.aws/${name}`),
);

/**
 * Why a NodePool may not use `key` as a requirement or template label (the CRD's CEL messages),
 * or undefined when it may. The domain is everything before the first `/` (the whole key when
 * there is none) and the CRD matches domains by suffix. Since Karpenter v1.9
 * (kubernetes-sigs/karpenter #2586) the kubernetes.io and k8s.io domains are no longer
 * restricted: only kubernetes.io/hostname, karpenter.sh (but capacity-type) and the AWS
 * provider's karpenter.k8s.aws (but its well-known labels) remain. Labels the kubelet may not
 * set on itself are still kept out of its --node-labels (bootstrap-options.ts).
 */
export function restrictedLabelReason(key: string): string | undefined {
  const domain = key.split('/')[0];
  if (key === 'kubernetes.io/hostname') return 'label "kubernetes.io/hostname" is restricted';
  if (key === 'karpenter.sh/nodepool') return 'label "karpenter.sh/nodepool" is restricted';
  if (domain.endsWith('karpenter.sh') && key !== 'karpenter.sh/capacity-type') {
    return 'label domain "karpenter.sh" is restricted';
  }
  if (domain.endsWith('karpenter.k8s.aws') && !ALLOWED_KARPENTER_AWS_LABELS.has(key)) {
    return 'label domain "karpenter.k8s.aws" is restricted';
  }
  return undefined;
}

/** Why `key` is not a qualified label key (apimachinery IsQualifiedName), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  if (key.length > 316 || !QUALIFIED_NAME.test(key)) {
    return 'must be a qualified name: an optional DNS subdomain prefix and "/", then alphanumerics, "-", "_" or "." starting and ending with an alphanumeric';
  }
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : '';
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix.length > 253) return 'prefix must be at most 253 characters';
  if (name.length > 63) return 'name part must be at most 63 characters';
  return undefined;
}

/** Why `value` is not a valid label value (apimachinery IsValidLabelValue), or undefined. */
function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be at most 63 characters';
  if (!LABEL_VALUE.test(value)) {
    return 'must be empty or alphanumerics, "-", "_" or "." starting and ending with an alphanumeric';
  }
  return undefined;
}

/** A label value, checked like apimachinery IsValidLabelValue. */
export const labelValue = z.string().superRefine((value, ctx) => {
  const problem = labelValueProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** spec.template.metadata.labels: at most 100, each key qualified and not restricted. */
export const templateLabels = z.record(z.string(), labelValue).superRefine((labels, ctx) => {
  const keys = Object.keys(labels);
  if (keys.length > 100) ctx.addIssue({ code: 'custom', message: 'must have at most 100 labels', path: [] });
  for (const key of keys) {
    const problem = labelKeyProblem(key) ?? restrictedLabelReason(key);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [key] });
  }
});
