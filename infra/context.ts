import { aws_iam as iam, aws_logs as logs, aws_sns as sns } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { parseFeatureGates } from '../shared/core/model/feature-gates';
import { WatcherImage } from './parts/watcher-image';
import type { ClusterAccessProps, PodliftProps } from './props';

/**
 * The app's context keys (`-c key=value` or cdk.json's `context`):
 *
 * | key | meaning | default |
 * | --- | --- | --- |
 * | `cluster` | the cluster name (required) | — |
 * | `clusterAccess` | `eks` or `kops` | `eks` |
 * | `kopsParameterKeyArn` | KMS key of the kOps access parameter | `aws/ssm` |
 * | `watcherOidcProviderArn`, `watcherOidcIssuer` | kOps: IAM OIDC provider for the watcher's role | no watcher role |
 * | `watcherImageUri` | an existing watcher image | built from watcher/Dockerfile at deploy |
 * | `watcherArchitecture` | `amd64` or `arm64`, for the built image | `amd64` |
 * | `nodeRoleArn` | an existing node role (e.g. Karpenter's), with its access entry | a new role |
 * | `nodePoolFiles` | comma-separated YAML files of NodePools / EC2NodeClasses (or kOps InstanceGroups) for SSM | none |
 * | `kopsRootDeviceName` | root device of kOps InstanceGroups' image, e.g. `/dev/sda1` | no root volume mapping |
 * | `rebalanceAction` | `event` or `replace` | `event` |
 * | `featureGates` | Karpenter's syntax, e.g. `NodeRepair=true,ReservedCapacity=false` (and `GlobalConsolidation=true`, `PodDeletionCostManagement=true`, `CandidateTaint=true`) | Karpenter's: ReservedCapacity on, the others off |
 * | `leaseNamespace`, `leaseName` | the cluster Lease | `podlift`, `podlift` |
 * | `logRetentionDays` | one of CloudWatch's retention values | 30 |
 * | `alarmTopicArn` | an SNS topic the alarms notify | none |
 * | `alarmEmail` | an address subscribed to the alarms (a new topic unless `alarmTopicArn`) | none |
 * | `installManifests` | `true` or `false`: apply manifests/ from the stack (EKS only) | `true` in EKS mode |
 */
/**
 * @param scope where an existing node role (`nodeRoleArn`) is imported; without it the key is
 * validated but not used (reading the cluster name only)
 */
export function podliftPropsFromContext(get: (key: string) => unknown, scope?: Construct): PodliftProps {
  const text = (key: string): string | undefined => {
    const value = get(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string')
      throw new Error(`context ${key}: expected a string, got ${JSON.stringify(value)}`);
    return value;
  };
  const cluster = text('cluster');
  if (cluster === undefined) {
    throw new Error('context cluster is missing: run `cdk synth -c cluster=<your EKS cluster name>`');
  }
  const access = text('clusterAccess') ?? 'eks';
  let clusterAccess: ClusterAccessProps;
  if (access === 'eks') clusterAccess = { kind: 'eks' };
  else if (access === 'kops') {
    const keyArn = text('kopsParameterKeyArn');
    const providerArn = text('watcherOidcProviderArn');
    const issuer = text('watcherOidcIssuer');
    if ((providerArn === undefined) !== (issuer === undefined)) {
      throw new Error(
        `context watcherOidcProviderArn ${JSON.stringify(providerArn)} and watcherOidcIssuer ${JSON.stringify(issuer)}: give both or neither`,
      );
    }
    clusterAccess = {
      kind: 'kops',
      ...(keyArn ? { parameterKeyArn: keyArn } : {}),
      ...(providerArn && issuer ? { watcherOidcProvider: { providerArn, issuer } } : {}),
    };
  } else throw new Error(`context clusterAccess ${JSON.stringify(access)} must be eks or kops`);
  const imageUri = text('watcherImageUri');
  const architecture = text('watcherArchitecture') ?? 'amd64';
  if (architecture !== 'amd64' && architecture !== 'arm64') {
    throw new Error(`context watcherArchitecture ${JSON.stringify(architecture)} must be amd64 or arm64`);
  }
  const files = text('nodePoolFiles')
    ?.split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const rootDevice = text('kopsRootDeviceName');
  const rebalance = text('rebalanceAction');
  const gates = text('featureGates');
  const featureGates = gates === undefined ? undefined : parseFeatureGates(gates);
  if (gates !== undefined && featureGates === undefined) {
    throw new Error(
      `context featureGates ${JSON.stringify(gates)} must be Name=true|false pairs, e.g. NodeRepair=true`,
    );
  }
  const leaseNamespace = text('leaseNamespace');
  const leaseName = text('leaseName');
  const retention = text('logRetentionDays');
  const alarmTopicArn = text('alarmTopicArn');
  if (alarmTopicArn !== undefined && !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/.test(alarmTopicArn)) {
    throw new Error(`context alarmTopicArn ${JSON.stringify(alarmTopicArn)} is not an SNS topic ARN`);
  }
  const alarmEmail = text('alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`context alarmEmail ${JSON.stringify(alarmEmail)} is not an e-mail address`);
  }
  const install = text('installManifests');
  if (install !== undefined && install !== 'true' && install !== 'false') {
    throw new Error(`context installManifests ${JSON.stringify(install)} must be true or false`);
  }
  const nodeRoleArn = text('nodeRoleArn');
  if (nodeRoleArn !== undefined && !/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(nodeRoleArn)) {
    throw new Error(`context nodeRoleArn ${JSON.stringify(nodeRoleArn)} is not an IAM role ARN`);
  }
  return {
    clusterName: cluster,
    clusterAccess,
    watcherImage: imageUri ? WatcherImage.fromUri(imageUri) : WatcherImage.fromBuild({ architecture }),
    ...(files?.length
      ? { nodePools: { files, ...(rootDevice ? { kopsRootDeviceName: rootDevice } : {}) } }
      : {}),
    ...(rebalance ? { rebalanceAction: rebalance as 'event' | 'replace' } : {}),
    ...(featureGates ? { featureGates } : {}),
    ...(leaseNamespace ? { leaseNamespace } : {}),
    ...(leaseName ? { leaseName } : {}),
    ...(retention ? { logRetention: retentionDays(retention) } : {}),
    ...(install ? { installManifests: install === 'true' } : {}),
    ...(nodeRoleArn && scope
      ? { nodeRole: iam.Role.fromRoleArn(scope, 'ImportedNodeRole', nodeRoleArn, { mutable: false }) }
      : {}),
    ...(alarmTopicArn || alarmEmail
      ? {
          alarms: {
            ...(alarmTopicArn && scope
              ? { topic: sns.Topic.fromTopicArn(scope, 'ImportedAlarmTopic', alarmTopicArn) }
              : {}),
            ...(alarmEmail ? { email: alarmEmail } : {}),
          },
        }
      : {}),
  };
}

function retentionDays(value: string): logs.RetentionDays {
  const days = Number(value);
  const allowed = Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number');
  if (!allowed.includes(days)) {
    throw new Error(`context logRetentionDays ${JSON.stringify(value)} must be one of ${allowed.join(', ')}`);
  }
  return days as logs.RetentionDays;
}
