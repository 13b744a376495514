import type { KubeletConfiguration } from '../../core/model/ec2nodeclass';
import { formatTaint } from '../../core/model/taints';
import { type BootstrapOptions, nodeLabelsFlag } from './bootstrap-options';
import { evictionSoftGracePeriods } from './go-duration';

/**
 * The kubelet flags the flag-based bootstrappers (AL2's bootstrap.sh, Windows'
 * Start-EKSBootstrap.ps1) pass on, in Karpenter's order (aws/karpenter-provider-aws
 * `pkg/providers/amifamily/bootstrap/bootstrap.go` Options.kubeletExtraArgs): labels, taints,
 * max pods, pods per core, reserved resources, eviction thresholds, image GC and CFS quota. Map
 * entries are sorted (Go's map order is random), so the script is deterministic; soft eviction
 * grace periods are written as Go's time.Duration.String writes them (`90s` → `1m30s`).
 *
 * @throws ValidationError naming the EC2NodeClass and the field when a grace period is no Go duration
 */
export function kubeletExtraArgs(options: BootstrapOptions): string[] {
  const k: KubeletConfiguration = options.kubelet;
  const joined = (flag: string, map: Readonly<Record<string, string>> | undefined, sep: string) => {
    const keys = Object.keys(map ?? {}).sort();
    return keys.length === 0
      ? undefined
      : `${flag}="${keys.map((key) => `${key}${sep}${map?.[key]}`).join(',')}"`;
  };
  const taints = options.taints.map(formatTaint).join(',');
  const args = [
    nodeLabelsFlag(options.labels),
    taints === '' ? undefined : `--register-with-taints="${taints}"`,
    k.maxPods !== undefined ? `--max-pods=${k.maxPods}` : undefined,
    k.podsPerCore !== undefined ? `--pods-per-core=${k.podsPerCore}` : undefined,
    joined('--system-reserved', k.systemReserved, '='),
    joined('--kube-reserved', k.kubeReserved, '='),
    joined('--eviction-hard', k.evictionHard, '<'),
    joined('--eviction-soft', k.evictionSoft, '<'),
    joined('--eviction-soft-grace-period', evictionSoftGracePeriods(options), '='),
    k.evictionMaxPodGracePeriod !== undefined
      ? `--eviction-max-pod-grace-period=${k.evictionMaxPodGracePeriod}`
      : undefined,
    k.imageGCHighThresholdPercent !== undefined
      ? `--image-gc-high-threshold=${k.imageGCHighThresholdPercent}`
      : undefined,
    k.imageGCLowThresholdPercent !== undefined
      ? `--image-gc-low-threshold=${k.imageGCLowThresholdPercent}`
      : undefined,
    k.cpuCFSQuota !== undefined ? `--cpu-cfs-quota=${k.cpuCFSQuota}` : undefined,
  ];
  return args.filter((a): a is string => a !== undefined);
}
