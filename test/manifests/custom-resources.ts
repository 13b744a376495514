import { parseEC2NodeClass } from '../../shared/core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';

/**
 * Builders for NodePool and EC2NodeClass manifests as users write them (plain objects, the
 * shape YAML decodes to), with every field set, a way to change a few fields by path, and the
 * core's verdict on a manifest.
 */

/** The kinds podlift's core parses from manifests. */
export type ParsedKind = 'NodePool' | 'EC2NodeClass';

/** A decoded YAML/JSON manifest. */
export type Manifest = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly spec: unknown;
} & Record<string, unknown>;

/** A NodePool that sets every field podlift's core knows (dynamic: no replicas). */
export function completeNodePoolManifest(name = 'default'): Manifest {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name, labels: { team: 'platform' } },
    spec: {
      template: {
        metadata: {
          labels: { 'billing-team': 'my-team', 'karpenter.sh/capacity-type': 'spot' },
          annotations: { 'example.com/owner': 'my-team' },
        },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            {
              key: 'karpenter.k8s.aws/instance-category',
              operator: 'In',
              values: ['c', 'm', 'r'],
              minValues: 2,
            },
            { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
            { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['64'] },
            { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['us-east-1e'] },
            { key: 'example.com/gpu', operator: 'DoesNotExist' },
          ],
          taints: [{ key: 'example.com/special-taint', value: 'true', effect: 'NoSchedule' }],
          startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
          expireAfter: '720h',
          terminationGracePeriod: '48h',
        },
      },
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '1m',
        budgets: [
          { nodes: '10%' },
          { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted', 'Underutilized'] },
          { nodes: '5', schedule: '@daily', duration: '1h30m' },
        ],
      },
      limits: { cpu: '1000', memory: '1000Gi', 'nvidia.com/gpu': 8 },
      weight: 10,
    },
  };
}

/** An EC2NodeClass that sets every spec field of Karpenter v1.14 (role, not instanceProfile). */
export function completeEc2NodeClassManifest(name = 'default'): Manifest {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      kubelet: {
        podsPerCore: 2,
        maxPods: 20,
        systemReserved: { cpu: '100m', memory: '100Mi', 'ephemeral-storage': '1Gi' },
        kubeReserved: { cpu: '200m', memory: '100Mi', 'ephemeral-storage': '3Gi', pid: '100' },
        evictionHard: { 'memory.available': '5%', 'nodefs.available': '10%', 'nodefs.inodesFree': '10%' },
        evictionSoft: { 'memory.available': '500Mi', 'nodefs.available': '15%' },
        evictionSoftGracePeriod: { 'memory.available': '1m', 'nodefs.available': '1m30s' },
        evictionMaxPodGracePeriod: 60,
        imageGCHighThresholdPercent: 85,
        imageGCLowThresholdPercent: 80,
        cpuCFSQuota: true,
        clusterDNS: ['10.0.1.100'],
        // Any other kubelet setting, as Karpenter's main branch accepts it (AL2023 applies it).
        shutdownGracePeriod: '30s',
      },
      subnetSelectorTerms: [
        { tags: { 'karpenter.sh/discovery': 'my-cluster' } },
        { id: 'subnet-09fa4a0a8f233a921' },
      ],
      securityGroupSelectorTerms: [
        { tags: { 'karpenter.sh/discovery': 'my-cluster' } },
        { id: 'sg-063d7acfb4b06c82c' },
        { name: 'my-security-group' },
      ],
      capacityReservationSelectorTerms: [
        { tags: { 'example.com/reserved': 'true' }, ownerID: '012345678901' },
        { id: 'cr-0123456789abcdef0' },
        { instanceMatchCriteria: 'open' },
      ],
      associatePublicIPAddress: false,
      ipPrefixCount: 0,
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      amiFamily: 'AL2023',
      userData: 'echo "Hello world"\n',
      role: 'KarpenterNodeRole-my-cluster',
      tags: { team: 'team-a', app: 'team-a-app' },
      metadataOptions: {
        httpEndpoint: 'enabled',
        httpProtocolIPv6: 'disabled',
        httpPutResponseHopLimit: 1,
        httpTokens: 'required',
      },
      blockDeviceMappings: [
        {
          deviceName: '/dev/xvda',
          rootVolume: true,
          ebs: {
            volumeSize: '100Gi',
            volumeType: 'gp3',
            iops: 10000,
            encrypted: true,
            kmsKeyID: 'arn:aws:kms:us-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
            deleteOnTermination: true,
            throughput: 125,
          },
        },
        { deviceName: '/dev/xvdb', ebs: { snapshotID: 'snap-0123456789', volumeInitializationRate: 200 } },
      ],
      instanceStorePolicy: 'RAID0',
      networkInterfaces: [
        { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
        { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
      ],
      placementGroupSelector: { name: 'my-placement-group' },
      connectionTracking: { tcpEstablishedTimeout: 3600, udpStreamTimeout: 120, udpTimeout: 30 },
      cpuOptions: { nestedVirtualization: 'enabled' },
      detailedMonitoring: true,
      context: 'cr-0123456789abcdef0',
    },
  };
}

/**
 * A copy of `manifest` with fields changed: keys are dotted paths (`spec.weight`,
 * `spec.template.spec.requirements.0.key`), `undefined` removes the field.
 */
export function withFields(manifest: Manifest, changes: Readonly<Record<string, unknown>>): Manifest {
  const copy = structuredClone(manifest);
  for (const [path, value] of Object.entries(changes)) {
    const segments = path.split('.');
    const last = segments.pop()!;
    let target = copy as Record<string, unknown>;
    for (const segment of segments) {
      target[segment] ??= {};
      target = target[segment] as Record<string, unknown>;
    }
    if (value === undefined) delete target[last];
    else target[last] = structuredClone(value);
  }
  return copy;
}

/** A builder per kind, for tables that cover both. */
export const manifestBuilders: Readonly<Record<ParsedKind, () => Manifest>> = {
  NodePool: () => completeNodePoolManifest(),
  EC2NodeClass: () => completeEc2NodeClassManifest(),
};

const parsers: Readonly<Record<ParsedKind, (manifest: unknown) => unknown>> = {
  NodePool: parseNodePool,
  EC2NodeClass: parseEC2NodeClass,
};

/** Why podlift's core rejects the manifest (its error message), or undefined when it accepts it. */
export function coreRejection(kind: ParsedKind, manifest: unknown): string | undefined {
  try {
    parsers[kind](manifest);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
