import { Aws, aws_eks as eks, aws_iam as iam } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import {
  WATCHER_NAMESPACE,
  WATCHER_SERVICE_ACCOUNT,
} from '../../shared/core/contracts/kubernetes-identities';
import type { ClusterAccessProps } from '../props';

/**
 * The four AWS-managed policies of an EKS worker node, as Karpenter's KarpenterNodeRole
 * (cloudformation.yaml) has them, with ECR pull-only instead of ECR read-only.
 */
export const NODE_ROLE_MANAGED_POLICIES = [
  'AmazonEKSWorkerNodePolicy',
  'AmazonEKS_CNI_Policy',
  'AmazonEC2ContainerRegistryPullOnly',
  'AmazonSSMManagedInstanceCore',
] as const;

/** The role podlift's nodes run with, and its instance profile. */
export class NodeIdentity extends Construct {
  readonly role: iam.IRole;
  readonly instanceProfile: iam.InstanceProfile;

  constructor(
    scope: Construct,
    id: string,
    props: { readonly clusterName: string; readonly role?: iam.IRole },
  ) {
    super(scope, id);
    this.role =
      props.role ??
      new iam.Role(this, 'Role', {
        roleName: `PodliftNodeRole-${props.clusterName}`.slice(0, 64),
        description: `Nodes podlift launches for cluster ${props.clusterName}`,
        assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
        managedPolicies: NODE_ROLE_MANAGED_POLICIES.map((name) =>
          iam.ManagedPolicy.fromAwsManagedPolicyName(name),
        ),
      });
    this.instanceProfile = new iam.InstanceProfile(this, 'InstanceProfile', { role: this.role });
  }
}

/** Props of {@link ClusterIdentities}. */
export interface ClusterIdentitiesProps {
  readonly clusterName: string;
  readonly access: ClusterAccessProps;
  readonly nodeRole: iam.IRole;
  /**
   * The functions' roles by construct id, each mapped to its Kubernetes group (from
   * shared/core/contracts/kubernetes-identities.ts) by its own access entry.
   */
  readonly functionRoles: Readonly<
    Record<string, { readonly role: iam.IRole; readonly kubernetesGroup: string }>
  >;
  /**
   * Whether to create the node role's access entry: a role the caller brings (Karpenter's, when
   * migrating) usually has one already, and EKS refuses a second for the same principal.
   */
  readonly nodeAccessEntry: boolean;
}

/**
 * How the cluster knows podlift's identities. EKS: access entries (the node role as EC2_LINUX,
 * the launching functions' role in `podlift:functions` and termination's in `podlift:termination`,
 * with no access policy: RBAC from manifests/ decides) and a Pod Identity association for the watcher's service account. kOps:
 * the watcher's role is trusted through the cluster's OIDC issuer (IRSA) when one is given; the
 * node and function identities are the kOps operator's (docs/deploy.md, kOps guide).
 */
export class ClusterIdentities extends Construct {
  /** The watcher's role; absent in kOps mode without an OIDC provider. */
  readonly watcherRole?: iam.Role;

  constructor(scope: Construct, id: string, props: ClusterIdentitiesProps) {
    super(scope, id);
    const { access, clusterName } = props;
    if (access.kind === 'eks') {
      if (props.nodeAccessEntry) {
        new eks.CfnAccessEntry(this, 'NodeAccessEntry', {
          clusterName,
          principalArn: props.nodeRole.roleArn,
          type: 'EC2_LINUX',
        });
      }
      for (const [id, { role, kubernetesGroup }] of Object.entries(props.functionRoles)) {
        new eks.CfnAccessEntry(this, `${id}AccessEntry`, {
          clusterName,
          principalArn: role.roleArn,
          type: 'STANDARD',
          kubernetesGroups: [kubernetesGroup],
        });
      }
      // EKS Pod Identity: the pods.eks.amazonaws.com principal assumes the role with session tags.
      // The service principal alone would let any Pod Identity association of any cluster, in
      // any account, name this role: aws:SourceAccount keeps it to this account, and the session
      // tags EKS Pod Identity sets (EKS user guide, pod-id-role and pod-id-abac) to this
      // cluster's ARN and the watcher's namespace and service account.
      this.watcherRole = new iam.Role(this, 'WatcherRole', {
        description: `podlift watcher of cluster ${clusterName}: publishes hints to the cluster's bus`,
        assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com').withSessionTags().withConditions({
          StringEquals: {
            'aws:SourceAccount': Aws.ACCOUNT_ID,
            'aws:RequestTag/eks-cluster-arn': clusterArn(clusterName),
            'aws:RequestTag/kubernetes-namespace': WATCHER_NAMESPACE,
            'aws:RequestTag/kubernetes-service-account': WATCHER_SERVICE_ACCOUNT,
          },
        }),
      });
      new eks.CfnPodIdentityAssociation(this, 'WatcherPodIdentity', {
        clusterName,
        namespace: WATCHER_NAMESPACE,
        serviceAccount: WATCHER_SERVICE_ACCOUNT,
        roleArn: this.watcherRole.roleArn,
      });
    } else if (access.watcherOidcProvider !== undefined) {
      const issuer = access.watcherOidcProvider.issuer.replace(/^https:\/\//, '');
      this.watcherRole = new iam.Role(this, 'WatcherRole', {
        description: `podlift watcher of cluster ${clusterName} (IRSA): publishes hints to the cluster's bus`,
        assumedBy: new iam.WebIdentityPrincipal(access.watcherOidcProvider.providerArn, {
          StringEquals: {
            [`${issuer}:sub`]: `system:serviceaccount:${WATCHER_NAMESPACE}:${WATCHER_SERVICE_ACCOUNT}`,
            [`${issuer}:aud`]: 'sts.amazonaws.com',
          },
        }),
      });
    }
  }
}

/** The ARN of the kOps access parameter the functions read (shared/aws/eks/kops-cluster-access.ts). */
export function kopsParameterArn(clusterName: string): string {
  return `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter/podlift/${clusterName}/cluster`;
}

/** The EKS cluster's ARN in this stack's account and region. */
function clusterArn(clusterName: string): string {
  return `arn:${Aws.PARTITION}:eks:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${clusterName}`;
}
