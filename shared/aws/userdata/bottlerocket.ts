import { type BootstrapOptions, invalidUserData } from './bootstrap-options';
import { evictionSoftGracePeriods } from './go-duration';
import { isTomlTable, parseToml, stringifyToml, type TomlTable, type TomlValue } from './toml';

/**
 * Bottlerocket user data: the EC2NodeClass's TOML settings with podlift's merged in, as
 * Karpenter does (aws/karpenter-provider-aws `bootstrap/bottlerocket.go`).
 *
 * podlift always sets `settings.kubernetes` cluster-name, api-server, cluster-certificate,
 * max-pods and node-taints (the user's taints are replaced), sets cluster-dns-ip when the
 * cluster DNS is known, merges node-labels (podlift's win), and replaces system-reserved,
 * kube-reserved, eviction-hard, eviction-soft, eviction-soft-grace-period (durations written
 * as Go writes them), eviction-max-pod-grace-period, image-gc thresholds and
 * cpu-cfs-quota-enforced only when the EC2NodeClass's kubelet sets them (Karpenter's
 * Bottlerocket.Script and the TOML keys of its bottlerocketsettings.go). Every other setting
 * is the user's. With instanceStorePolicy RAID0 a bootstrap command mounts the instance
 * store, as Karpenter's does.
 *
 * @returns the TOML text (not yet base64)
 * @throws ValidationError naming the EC2NodeClass and spec.userData when it is not valid TOML
 *   or its settings are not tables
 */
export function bottlerocketUserData(options: BootstrapOptions): string {
  const root = userSettings(options);
  const settings = table(root, 'settings', options, 'settings');
  const kubernetes = table(settings, 'kubernetes', options, 'settings.kubernetes');
  const { cluster, kubelet } = options;

  kubernetes['cluster-name'] = cluster.name;
  kubernetes['api-server'] = cluster.endpoint;
  kubernetes['cluster-certificate'] = cluster.certificateAuthority;
  if (kubelet.maxPods !== undefined) kubernetes['max-pods'] = kubelet.maxPods;
  const dns = kubelet.clusterDNS ?? [];
  if (dns.length === 1) kubernetes['cluster-dns-ip'] = dns[0];
  else if (dns.length > 1) kubernetes['cluster-dns-ip'] = [...dns];

  const labels = table(kubernetes, 'node-labels', options, 'settings.kubernetes.node-labels');
  for (const [key, value] of Object.entries(options.labels)) labels[key] = value;

  const taints: Record<string, TomlValue[]> = {};
  for (const taint of options.taints) {
    const list = taints[taint.key] ?? [];
    list.push(`${taint.value ?? ''}:${taint.effect}`);
    taints[taint.key] = list;
  }
  kubernetes['node-taints'] = taints;

  if (kubelet.systemReserved !== undefined) kubernetes['system-reserved'] = { ...kubelet.systemReserved };
  if (kubelet.kubeReserved !== undefined) kubernetes['kube-reserved'] = { ...kubelet.kubeReserved };
  if (kubelet.evictionHard !== undefined) kubernetes['eviction-hard'] = { ...kubelet.evictionHard };
  if (kubelet.evictionSoft !== undefined) kubernetes['eviction-soft'] = { ...kubelet.evictionSoft };
  const gracePeriods = evictionSoftGracePeriods(options);
  if (gracePeriods !== undefined) kubernetes['eviction-soft-grace-period'] = gracePeriods;
  if (kubelet.evictionMaxPodGracePeriod !== undefined) {
    kubernetes['eviction-max-pod-grace-period'] = kubelet.evictionMaxPodGracePeriod;
  }
  if (kubelet.imageGCHighThresholdPercent !== undefined) {
    kubernetes['image-gc-high-threshold-percent'] = String(kubelet.imageGCHighThresholdPercent);
  }
  if (kubelet.imageGCLowThresholdPercent !== undefined) {
    kubernetes['image-gc-low-threshold-percent'] = String(kubelet.imageGCLowThresholdPercent);
  }
  if (kubelet.cpuCFSQuota !== undefined) kubernetes['cpu-cfs-quota-enforced'] = kubelet.cpuCFSQuota;

  if (options.instanceStorePolicy === 'RAID0') {
    const commands = table(settings, 'bootstrap-commands', options, 'settings.bootstrap-commands');
    commands['000-mount-instance-storage'] = {
      commands: [
        ['apiclient', 'ephemeral-storage', 'init'],
        [
          'apiclient',
          'ephemeral-storage',
          'bind',
          '--dirs',
          '/var/lib/containerd',
          '/var/lib/kubelet',
          '/var/log/pods',
        ],
      ],
      mode: 'always',
      essential: true,
    };
  }
  return stringifyToml(root);
}

function userSettings(options: BootstrapOptions): TomlTable {
  const text = options.customUserData;
  if (text === undefined || text.trim() === '') return {};
  try {
    return parseToml(text);
  } catch (e) {
    throw invalidUserData(options, `not valid TOML: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** The table under `key`, created when absent. */
function table(parent: TomlTable, key: string, options: BootstrapOptions, path: string): TomlTable {
  const existing = parent[key];
  if (existing === undefined) {
    const created: TomlTable = {};
    parent[key] = created;
    return created;
  }
  if (!isTomlTable(existing)) throw invalidUserData(options, `${path} must be a TOML table`);
  return existing;
}
