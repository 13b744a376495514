import type {
  AmiFamily,
  AmiSelectorTerm,
  BlockDeviceMapping,
  EC2NodeClass,
  KubeletConfiguration,
  SelectorTerm,
} from '../../../shared/core/model/ec2nodeclass';
import { resourceValue } from '../../../shared/core/model/quantity';

/** Options of {@link nodeClass}; every field is optional. */
export interface NodeClassOptions {
  /** Default `default`. */
  readonly name?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly kubelet?: KubeletConfiguration;
  readonly subnetSelectorTerms?: readonly SelectorTerm[];
  readonly securityGroupSelectorTerms?: readonly SelectorTerm[];
  readonly capacityReservationSelectorTerms?: readonly SelectorTerm[];
  readonly amiSelectorTerms?: readonly AmiSelectorTerm[];
  readonly amiFamily?: AmiFamily;
  readonly associatePublicIPAddress?: boolean;
  /** Default `KarpenterNodeRole` unless instanceProfile is given (exactly one is set). */
  readonly role?: string;
  readonly instanceProfile?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly metadataOptions?: Partial<EC2NodeClass['metadataOptions']>;
  readonly blockDeviceMappings?: readonly BlockDeviceMapping[];
  readonly instanceStorePolicy?: 'RAID0';
  readonly userData?: string;
  readonly detailedMonitoring?: boolean;
  readonly context?: string;
  /** Root volume size as a quantity; default 20Gi. */
  readonly rootVolume?: string | number;
  readonly status?: Readonly<Record<string, unknown>>;
}

/**
 * An EC2NodeClass with Karpenter's defaults: AL2023, IMDS endpoint enabled, IPv6 endpoint
 * disabled, hop limit 1, IMDSv2 required, 20Gi root volume, no detailed monitoring, no tags
 * and no selector terms.
 */
export function nodeClass(options: NodeClassOptions = {}): EC2NodeClass {
  const identity =
    options.instanceProfile !== undefined
      ? { instanceProfile: options.instanceProfile }
      : { role: options.role ?? 'KarpenterNodeRole' };
  return {
    name: options.name ?? 'default',
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    labels: options.labels ?? {},
    annotations: options.annotations ?? {},
    ...(options.kubelet !== undefined ? { kubelet: options.kubelet } : {}),
    subnetSelectorTerms: options.subnetSelectorTerms ?? [],
    securityGroupSelectorTerms: options.securityGroupSelectorTerms ?? [],
    capacityReservationSelectorTerms: options.capacityReservationSelectorTerms ?? [],
    amiSelectorTerms: options.amiSelectorTerms ?? [],
    amiFamily: options.amiFamily ?? 'AL2023',
    ...(options.associatePublicIPAddress !== undefined
      ? { associatePublicIPAddress: options.associatePublicIPAddress }
      : {}),
    ...identity,
    tags: options.tags ?? {},
    metadataOptions: {
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
      ...options.metadataOptions,
    },
    blockDeviceMappings: options.blockDeviceMappings ?? [],
    ...(options.instanceStorePolicy !== undefined
      ? { instanceStorePolicy: options.instanceStorePolicy }
      : {}),
    ...(options.userData !== undefined ? { userData: options.userData } : {}),
    detailedMonitoring: options.detailedMonitoring ?? false,
    ...(options.context !== undefined ? { context: options.context } : {}),
    rootVolumeBytes: resourceValue('ephemeral-storage', options.rootVolume ?? '20Gi'),
    ...(options.status !== undefined ? { status: options.status } : {}),
  };
}
