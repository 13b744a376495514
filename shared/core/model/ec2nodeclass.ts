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

export type AmiFamily = 'AL2' | 'AL2023' | 'Bottlerocket' | 'Windows2019' | 'Windows2022' | 'Custom';

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
}
