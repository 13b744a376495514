import * as z from 'zod';
import type { AmiFamily, KubeletConfiguration } from '../model/ec2nodeclass';
import { goDurationNanoseconds } from '../model/go-duration';

/**
 * spec.kubelet of an EC2NodeClass. The settings Karpenter v1.14 typed (maxPods, podsPerCore,
 * reservations, eviction thresholds, image GC, cpuCFSQuota, clusterDNS) keep their CRD rules;
 * any other kubelet setting is accepted as Karpenter's main branch accepts it
 * (aws/karpenter-provider-aws #9461, pkg/apis/v1/kubeletconfiguration_validation.go
 * ValidateKubeletConfig and pkg/controllers/nodeclass/validation.go
 * validateKubeletFieldsSupported): it must be a field of kubelet.config.k8s.io/v1beta1
 * KubeletConfiguration, may not be one Karpenter sets itself (registerWithTaints), and is
 * refused on the AMI families that would drop it (all but AL2023, whose nodeadm config carries
 * it, and Custom, whose user data is the user's).
 *
 * Where we differ: values of the passed-through settings are not type-checked against the
 * kubelet's Go types (Karpenter decodes them strictly); nodeadm reports a wrong type on the node.
 */

const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
// Note the CRD's "||": an empty threshold is accepted.
const EVICTION_THRESHOLD =
  /^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?)$/;

const EVICTION_SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
];
const RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'];

/**
 * The JSON field names of kubelet.config.k8s.io/v1beta1 KubeletConfiguration in k8s.io/kubelet
 * v0.36.3 (config/v1beta1/types.go), the version Karpenter's main branch compiles against.
 */
export const KUBELET_CONFIGURATION_FIELDS: ReadonlySet<string> = new Set([
  'address',
  'allowedUnsafeSysctls',
  'authentication',
  'authorization',
  'cgroupDriver',
  'cgroupRoot',
  'cgroupsPerQOS',
  'clusterDNS',
  'clusterDomain',
  'configMapAndSecretChangeDetectionStrategy',
  'containerLogMaxFiles',
  'containerLogMaxSize',
  'containerLogMaxWorkers',
  'containerLogMonitorInterval',
  'containerRuntimeEndpoint',
  'contentType',
  'cpuCFSQuota',
  'cpuCFSQuotaPeriod',
  'cpuManagerPolicy',
  'cpuManagerPolicyOptions',
  'cpuManagerReconcilePeriod',
  'crashLoopBackOff',
  'enableContentionProfiling',
  'enableControllerAttachDetach',
  'enableDebugFlagsHandler',
  'enableDebuggingHandlers',
  'enableProfilingHandler',
  'enableServer',
  'enableSystemLogHandler',
  'enableSystemLogQuery',
  'enforceNodeAllocatable',
  'eventBurst',
  'eventRecordQPS',
  'evictionHard',
  'evictionMaxPodGracePeriod',
  'evictionMinimumReclaim',
  'evictionPressureTransitionPeriod',
  'evictionSoft',
  'evictionSoftGracePeriod',
  'failCgroupV1',
  'failSwapOn',
  'featureGates',
  'fileCheckFrequency',
  'hairpinMode',
  'healthzBindAddress',
  'healthzPort',
  'httpCheckFrequency',
  'imageGCHighThresholdPercent',
  'imageGCLowThresholdPercent',
  'imageMaximumGCAge',
  'imageMinimumGCAge',
  'imagePullCredentialsVerificationPolicy',
  'imageServiceEndpoint',
  'iptablesDropBit',
  'iptablesMasqueradeBit',
  'kernelMemcgNotification',
  'kubeAPIBurst',
  'kubeAPIQPS',
  'kubeReserved',
  'kubeReservedCgroup',
  'kubeletCgroups',
  'localStorageCapacityIsolation',
  'logging',
  'makeIPTablesUtilChains',
  'maxOpenFiles',
  'maxParallelImagePulls',
  'maxPods',
  'memoryManagerPolicy',
  'memoryReservationPolicy',
  'memorySwap',
  'memoryThrottlingFactor',
  'mergeDefaultEvictionSettings',
  'nodeLeaseDurationSeconds',
  'nodeStatusMaxImages',
  'nodeStatusReportFrequency',
  'nodeStatusUpdateFrequency',
  'oomScoreAdj',
  'podCIDR',
  'podLogsDir',
  'podPidsLimit',
  'podsPerCore',
  'port',
  'preloadedImagesVerificationAllowlist',
  'protectKernelDefaults',
  'providerID',
  'qosReserved',
  'readOnlyPort',
  'registerNode',
  'registerWithTaints',
  'registryBurst',
  'registryPullQPS',
  'reservedMemory',
  'reservedSystemCPUs',
  'resolvConf',
  'rotateCertificates',
  'runOnce',
  'runtimeRequestTimeout',
  'seccompDefault',
  'serializeImagePulls',
  'serverTLSBootstrap',
  'showHiddenMetricsForVersion',
  'shutdownGracePeriod',
  'shutdownGracePeriodByPodPriority',
  'shutdownGracePeriodCriticalPods',
  'singleProcessOOMKill',
  'staticPodPath',
  'staticPodURL',
  'staticPodURLHeader',
  'streamingConnectionIdleTimeout',
  'syncFrequency',
  'systemCgroups',
  'systemReserved',
  'systemReservedCgroup',
  'tlsCertFile',
  'tlsCipherSuites',
  'tlsCurvePreferences',
  'tlsMinVersion',
  'tlsPrivateKeyFile',
  'topologyManagerPolicy',
  'topologyManagerPolicyOptions',
  'topologyManagerScope',
  'tracing',
  'userNamespaces',
  'volumePluginDir',
  'volumeStatsAggPeriod',
]);

/** Settings Karpenter writes itself, so a user's value would be overwritten without a word. */
const KARPENTER_OWNED: Readonly<Record<string, string>> = {
  registerWithTaints:
    "can't be set, podlift sets it from the NodeClaim's taints so the node registers unschedulable until it's ready",
};

function keyedMap<V extends z.ZodType>(value: V, allowed: readonly string[], field: string) {
  return z.record(z.string(), value).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (!allowed.includes(key)) {
        ctx.addIssue({
          code: 'custom',
          message: `valid keys for ${field} are [${allowed.map((k) => `'${k}'`).join(',')}]`,
          path: [key],
        });
      }
    }
  });
}

const reserved = (field: string) =>
  keyedMap(
    z
      .string()
      .regex(QUANTITY, 'must be a Kubernetes quantity ("100m", "1Gi")')
      .refine((v) => !v.startsWith('-'), `${field} value cannot be a negative resource quantity`),
    RESERVED_RESOURCES,
    field,
  );

const evictionThresholds = (field: string) =>
  keyedMap(
    z.string().regex(EVICTION_THRESHOLD, 'must be a percentage ("10%") or a quantity ("100Mi")'),
    EVICTION_SIGNALS,
    field,
  );

/** A grace period as the kubelet parses it (time.ParseDuration), never negative. */
const gracePeriod = z.string().superRefine((value, ctx) => {
  const ns = goDurationNanoseconds(value);
  if (ns === undefined) ctx.addIssue({ code: 'custom', message: 'must be a duration ("1m30s")' });
  else if (ns < 0n) ctx.addIssue({ code: 'custom', message: "can't be a negative duration" });
});

const MANAGED = {
  maxPods: z.int32().min(0).optional(),
  podsPerCore: z.int32().min(0).optional(),
  systemReserved: reserved('systemReserved').optional(),
  kubeReserved: reserved('kubeReserved').optional(),
  evictionHard: evictionThresholds('evictionHard').optional(),
  evictionSoft: evictionThresholds('evictionSoft').optional(),
  evictionSoftGracePeriod: keyedMap(gracePeriod, EVICTION_SIGNALS, 'evictionSoftGracePeriod').optional(),
  evictionMaxPodGracePeriod: z.int32().optional(),
  imageGCHighThresholdPercent: z.int32().min(0).max(100).optional(),
  imageGCLowThresholdPercent: z.int32().min(0).max(100).optional(),
  cpuCFSQuota: z.boolean().optional(),
  clusterDNS: z.array(z.string()).optional(),
};

/** spec.kubelet: the typed settings, and any other kubelet setting by its kubelet name. */
export const kubelet = z.looseObject(MANAGED).superRefine((k, ctx) => {
  for (const key of passthroughKeys(k)) {
    if (key in KARPENTER_OWNED) {
      ctx.addIssue({ code: 'custom', message: KARPENTER_OWNED[key], path: [key] });
    } else if (!KUBELET_CONFIGURATION_FIELDS.has(key)) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown field "${key}" (not a setting of kubelet.config.k8s.io/v1beta1 KubeletConfiguration)`,
        path: [key],
      });
    }
  }
  const high = k.imageGCHighThresholdPercent;
  const low = k.imageGCLowThresholdPercent;
  if (high !== undefined && low !== undefined && high <= low) {
    ctx.addIssue({
      code: 'custom',
      message: `imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent (${low})`,
      path: ['imageGCHighThresholdPercent'],
    });
  }
  for (const signal of Object.keys(k.evictionSoft ?? {})) {
    if (!(signal in (k.evictionSoftGracePeriod ?? {}))) {
      ctx.addIssue({
        code: 'custom',
        message: 'evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod',
        path: ['evictionSoft', signal],
      });
    }
  }
  for (const signal of Object.keys(k.evictionSoftGracePeriod ?? {})) {
    if (!(signal in (k.evictionSoft ?? {}))) {
      ctx.addIssue({
        code: 'custom',
        message: 'evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft',
        path: ['evictionSoftGracePeriod', signal],
      });
    }
  }
});

type KubeletInput = z.infer<typeof kubelet>;

/** The settings of `k` that are not Karpenter's typed ones, sorted. */
function passthroughKeys(k: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(k)
    .filter((key) => !(key in MANAGED))
    .sort();
}

/**
 * Why the family cannot apply these kubelet settings, or undefined (aws/karpenter-provider-aws
 * pkg/controllers/nodeclass/validation.go validateKubeletFieldsSupported): only AL2023 renders
 * any setting through, and Custom applies none of them; Bottlerocket has no podsPerCore; AL2,
 * Bottlerocket and Windows take one cluster DNS address (`--dns-cluster-ip`, `cluster-dns-ip`,
 * `-DNSClusterIP`), so a second one would be dropped.
 */
export function kubeletFamilyProblem(k: KubeletInput, family: AmiFamily): string | undefined {
  if (family === 'AL2023' || family === 'Custom') return undefined;
  const unsupported = passthroughKeys(k);
  if (k.podsPerCore !== undefined && family === 'Bottlerocket') unsupported.push('podsPerCore');
  const messages: string[] = [];
  if (unsupported.length > 0) {
    messages.push(
      `spec.kubelet has fields not applied by the ${family} AMI family that would be silently dropped: ${unsupported.sort().join(', ')}`,
    );
  }
  const dns = k.clusterDNS?.length ?? 0;
  if (dns > 1) {
    messages.push(
      `spec.kubelet.clusterDNS: the ${family} AMI family doesn't accept multiple entries, only one, but ${dns} were set`,
    );
  }
  return messages.length === 0 ? undefined : messages.join('; ');
}

/** The contract's shape: the typed settings present, the rest under `passthrough`. */
export function toKubelet(k: KubeletInput): KubeletConfiguration {
  const typed = Object.fromEntries(
    Object.entries(k).filter(([key, v]) => key in MANAGED && v !== undefined),
  ) as KubeletConfiguration;
  const rest = passthroughKeys(k);
  return rest.length === 0
    ? typed
    : { ...typed, passthrough: Object.fromEntries(rest.map((key) => [key, k[key]])) };
}
