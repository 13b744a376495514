/** spec.kubelet of an EC2NodeClass. Reserved/eviction maps keep the user's quantity strings. */
export interface KubeletConfiguration {
  readonly maxPods?: number;
  readonly podsPerCore?: number;
  readonly systemReserved?: Readonly<Record<string, string>>;
  readonly kubeReserved?: Readonly<Record<string, string>>;
  /** e.g. { "memory.available": "5%", "nodefs.available": "10%" }. */
  readonly evictionHard?: Readonly<Record<string, string>>;
  readonly evictionSoft?: Readonly<Record<string, string>>;
  readonly evictionSoftGracePeriod?: Readonly<Record<string, string>>;
  readonly evictionMaxPodGracePeriod?: number;
  readonly imageGCHighThresholdPercent?: number;
  readonly imageGCLowThresholdPercent?: number;
  readonly cpuCFSQuota?: boolean;
  readonly clusterDNS?: readonly string[];
  /**
   * Any other KubeletConfiguration (kubelet.config.k8s.io/v1beta1) setting, as written: Karpenter's
   * main branch lets spec.kubelet carry every kubelet setting (aws/karpenter-provider-aws #9461).
   * Only AL2023 (nodeadm's inline kubelet config) applies them; validation refuses them on the
   * other families, where they would be dropped, and Custom ignores them with the rest.
   */
  readonly passthrough?: Readonly<Record<string, unknown>>;
}

/** A selector term of subnetSelectorTerms / securityGroupSelectorTerms / capacityReservationSelectorTerms. */
export interface SelectorTerm {
  readonly tags?: Readonly<Record<string, string>>;
  readonly id?: string;
  readonly name?: string;
  readonly owner?: string;
  /** Subnet terms: the subnet's CIDR block. */
  readonly cidr?: string;
  /** Capacity reservation terms: the 12-digit account that owns the reservation. */
  readonly ownerID?: string;
  /** Capacity reservation terms: which reservations instances may use. */
  readonly instanceMatchCriteria?: 'open' | 'targeted';
}

export interface AmiSelectorTerm {
  /** e.g. "al2023@latest", "bottlerocket@v1.20.0". */
  readonly alias?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly id?: string;
  readonly name?: string;
  readonly owner?: string;
  readonly ssmParameter?: string;
}

export interface BlockDeviceMapping {
  readonly deviceName?: string;
  readonly rootVolume?: boolean;
  readonly ebs?: {
    readonly volumeSize?: string;
    readonly volumeType?: string;
    readonly iops?: number;
    readonly throughput?: number;
    readonly encrypted?: boolean;
    readonly kmsKeyID?: string;
    readonly deleteOnTermination?: boolean;
    readonly snapshotID?: string;
    /** MiB/s at which a volume created from snapshotID is initialised (100..300). */
    readonly volumeInitializationRate?: number;
  };
}

/** Root volume size when no block device mapping sets one (Karpenter's default: 20Gi). */
export const DEFAULT_ROOT_VOLUME_BYTES = 20 * 1024 ** 3;

export type AmiFamily =
  | 'AL2'
  | 'AL2023'
  | 'Bottlerocket'
  | 'Windows2019'
  | 'Windows2022'
  | 'Windows2025'
  | 'Custom';

/** Whether the family is one of the EKS optimized Windows AMIs. */
export function isWindowsFamily(family: AmiFamily): boolean {
  return family === 'Windows2019' || family === 'Windows2022' || family === 'Windows2025';
}

/** spec.placementGroupSelector: the placement group instances launch into, by name or id. */
export interface PlacementGroupSelector {
  readonly name?: string;
  readonly id?: string;
}

/** One of spec.networkInterfaces: an interface of the launch template, on a network card. */
export interface NetworkInterface {
  readonly networkCardIndex: number;
  readonly deviceIndex: number;
  /** "interface" (ENA) or "efa-only". */
  readonly interfaceType: 'interface' | 'efa-only';
}

/** spec.connectionTracking: idle timeouts (seconds) of the interfaces the launch template makes. */
export interface ConnectionTracking {
  readonly tcpEstablishedTimeout?: number;
  readonly udpStreamTimeout?: number;
  readonly udpTimeout?: number;
}

/** spec.cpuOptions. */
export interface CpuOptions {
  readonly nestedVirtualization?: 'enabled' | 'disabled';
}

/**
 * A validated karpenter.k8s.aws/v1 EC2NodeClass with Karpenter's defaults applied.
 */
export interface EC2NodeClass {
  readonly name: string;
  readonly uid?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly kubelet?: KubeletConfiguration;
  readonly subnetSelectorTerms: readonly SelectorTerm[];
  readonly securityGroupSelectorTerms: readonly SelectorTerm[];
  readonly capacityReservationSelectorTerms: readonly SelectorTerm[];
  readonly amiSelectorTerms: readonly AmiSelectorTerm[];
  /** From amiFamily, or inferred from an alias term ("al2023@latest" → AL2023). */
  readonly amiFamily: AmiFamily;
  readonly associatePublicIPAddress?: boolean;
  readonly placementGroupSelector?: PlacementGroupSelector;
  /** Explicit interfaces of the launch template; none means one primary interface. */
  readonly networkInterfaces?: readonly NetworkInterface[];
  readonly connectionTracking?: ConnectionTracking;
  readonly cpuOptions?: CpuOptions;
  /** Number of IPv4 prefixes assigned to the primary network interface. */
  readonly ipPrefixCount?: number;
  /** Exactly one of role / instanceProfile is set. */
  readonly role?: string;
  readonly instanceProfile?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly metadataOptions: {
    readonly httpEndpoint: 'enabled' | 'disabled';
    readonly httpProtocolIPv6: 'enabled' | 'disabled';
    readonly httpPutResponseHopLimit: number;
    readonly httpTokens: 'required' | 'optional';
  };
  readonly blockDeviceMappings: readonly BlockDeviceMapping[];
  readonly instanceStorePolicy?: 'RAID0';
  readonly userData?: string;
  readonly detailedMonitoring: boolean;
  readonly context?: string;
  /** The size of the root volume in bytes (from blockDeviceMappings; default 20Gi), used for ephemeral-storage. */
  readonly rootVolumeBytes: number;
  /** Parsed status, when read from a cluster. */
  readonly status?: Readonly<Record<string, unknown>>;
  /**
   * What the EC2NodeClass sets that Karpenter accepts and podlift accepts but does not (fully)
   * honour, one sentence each naming the field; empty when everything is honoured.
   */
  readonly warnings?: readonly string[];
}
