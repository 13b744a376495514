import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

const P = '<AWS::Partition>';
const R = '<AWS::Region>';
const A = '<AWS::AccountId>';

/** Constructs the acknowledgements attach to (each finding acknowledged where it arises). */
export interface NagScopes {
  readonly clusterName: string;
  /** The functions' policies (the launching functions' and termination's). */
  readonly policies: readonly IConstruct[];
  /** Absent when the caller brought its own node role. */
  readonly nodeRole?: IConstruct;
  readonly functions: IConstruct;
  /** The installer (infra/parts/cluster-install.ts); absent when it is off. */
  readonly install?: IConstruct;
}

const wildcard = (resource: string, reason: string) => ({
  id: `AwsSolutions-IAM5[Resource::${resource}]`,
  reason,
});

/**
 * The cdk-nag AwsSolutions findings podlift accepts, each with its reason; anything else fails
 * `cdk synth`. Every IAM5 (wildcard) finding is one of Karpenter's own controller-policy
 * resources, scoped by the same conditions (tests in test/infra list them).
 */
export function acknowledgeFindings(scopes: NagScopes): void {
  const launchReason = (what: string) =>
    `${what}: the ids are chosen at launch (EC2NodeClass selectors, CreateFleet); as in Karpenter's controller policy, creation needs the cluster's request tags (aws:RequestTag/kubernetes.io/cluster/${scopes.clusterName}=owned, karpenter.sh/nodepool) and deletion the same resource tags`;
  const acknowledgements = [
    wildcard(
      '*',
      "EC2 Describe* and pricing:GetProducts support no resource-level permissions (Describe* limited to this region by aws:RequestedRegion), as in Karpenter's AllowRegionalReadActions and AllowPricingReadActions",
    ),
    wildcard(
      `arn:${P}:ec2:${R}::image/*`,
      launchReason('AMIs chosen by amiSelectorTerms, public or owned by other accounts'),
    ),
    wildcard(`arn:${P}:ec2:${R}::snapshot/*`, launchReason('snapshots behind the chosen AMIs')),
    wildcard(
      `arn:${P}:ec2:${R}:*:subnet/*`,
      launchReason('subnets chosen by subnetSelectorTerms (shared VPCs belong to other accounts)'),
    ),
    wildcard(
      `arn:${P}:ec2:${R}:*:security-group/*`,
      launchReason('security groups chosen by securityGroupSelectorTerms'),
    ),
    wildcard(`arn:${P}:ec2:${R}:*:spot-instances-request/*`, launchReason('spot requests CreateFleet makes')),
    wildcard(
      `arn:${P}:ec2:${R}:*:placement-group/*`,
      launchReason('the placement group an EC2NodeClass placementGroupSelector chooses'),
    ),
    wildcard(
      `arn:${P}:ec2:${R}:*:capacity-reservation/*`,
      launchReason('the capacity reservations capacityReservationSelectorTerms choose'),
    ),
    wildcard(
      `arn:${P}:ec2:${R}:*:launch-template/*`,
      launchReason('launch templates podlift creates, named by content hash'),
    ),
    wildcard(`arn:${P}:ec2:${R}:*:fleet/*`, launchReason('fleets CreateFleet creates')),
    wildcard(
      `arn:${P}:ec2:${R}:*:instance/*`,
      launchReason('instances CreateFleet launches and termination ends'),
    ),
    wildcard(`arn:${P}:ec2:${R}:*:volume/*`, launchReason('volumes created with the instances')),
    wildcard(
      `arn:${P}:ec2:${R}:*:network-interface/*`,
      launchReason('network interfaces created with the instances'),
    ),
    wildcard(
      `arn:${P}:ssm:${R}::parameter/aws/service/*`,
      'The public EKS-optimized and Bottlerocket AMI parameters (Karpenter: AllowSSMReadActions); the version and variant in the name come from the cluster and EC2NodeClass at run time',
    ),
    wildcard(
      `arn:${P}:ssm:${R}:${A}:parameter/podlift/${scopes.clusterName}/*`,
      "This cluster's own parameters: NodePools and EC2NodeClasses under nodepools/ and nodeclasses/, read with GetParametersByPath",
    ),
    wildcard(
      `arn:${P}:iam::${A}:instance-profile/*`,
      "This account's instance profiles: GetInstanceProfile (an EC2NodeClass spec.instanceProfile names any of them) and ListInstanceProfiles are reads; create, tag, add/remove role and delete are scoped by aws:RequestTag/aws:ResourceTag kubernetes.io/cluster/<cluster>=owned, eks:eks-cluster-name, topology.kubernetes.io/region and karpenter.k8s.aws/ec2nodeclass, as in Karpenter's policy",
    ),
  ];
  for (const policy of scopes.policies) Validations.of(policy).acknowledge(...acknowledgements);
  if (scopes.nodeRole) {
    const managed = (name: string, reason: string) => ({
      id: `AwsSolutions-IAM4[Policy::arn:${P}:iam::aws:policy/${name}]`,
      reason,
    });
    Validations.of(scopes.nodeRole).acknowledge(
      managed(
        'AmazonEKSWorkerNodePolicy',
        'Required by EKS for a worker node (kubelet registration, EC2 describe calls); AWS maintains it as EKS evolves',
      ),
      managed(
        'AmazonEKS_CNI_Policy',
        'The VPC CNI on the node assigns ENIs and IPs with it (EKS documentation; Karpenter attaches it too)',
      ),
      managed(
        'AmazonEC2ContainerRegistryPullOnly',
        'Pull-only ECR access for kubelet image pulls, the narrowest managed ECR policy',
      ),
      managed(
        'AmazonSSMManagedInstanceCore',
        'SSM Session Manager access to nodes instead of SSH keys, as Karpenter’s node role has',
      ),
    );
  }
  const node22 = {
    id: 'AwsSolutions-L1',
    reason:
      'Node.js 22 on purpose: the code is tested on Node 20/22 and bundled for node22; nodejs24.x (the latest) is adopted once CI runs Node 24',
  };
  Validations.of(scopes.functions).acknowledge(node22);
  if (scopes.install) acknowledgeInstaller(scopes.install);
}

/**
 * The installer's findings: its own functions' runtime, and what aws-cdk-lib's Provider
 * framework (custom-resources/lib/provider-framework/provider.ts) creates as it is: its three
 * functions' roles with AWSLambdaBasicExecutionRole, `lambda:InvokeFunction` on the installer's
 * functions and their versions (`<arn>:*`), and a waiter state machine without X-Ray.
 */
/** The logical id of the function at `path` under the installer. */
function logicalId(first: IConstruct, path: string): string {
  const fn = path.includes('/') ? first.node.findChild(path.split('/')[1]) : first;
  const stack = Stack.of(fn);
  return stack.resolve(stack.getLogicalId(fn.node.defaultChild as CfnElement)) as string;
}

function acknowledgeInstaller(install: IConstruct): void {
  Validations.of(install).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      "The installer's functions run Node.js 22 as podlift's others (tested on Node 20/22, bundled for node22)",
  });
  const provider = install.node.findChild('Provider');
  Validations.of(provider).acknowledge(
    {
      id: `AwsSolutions-IAM4[Policy::arn:${P}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]`,
      reason:
        "The Provider framework's own functions (aws-cdk-lib custom-resources) write their logs with it; they run only during a deploy",
    },
    ...['OnEvent', 'IsComplete', 'Provider/framework-isComplete', 'Provider/framework-onTimeout'].map(
      (path) => ({
        id: `AwsSolutions-IAM5[Resource::<${logicalId(install.node.findChild(path.split('/')[0]), path)}.Arn>:*]`,
        reason:
          "The Provider framework grants its functions and waiter lambda:InvokeFunction on the installer's and its own functions and their versions (<arn>:*), nothing else",
      }),
    ),
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CloudWatch Logs vended delivery for the waiter state machine (logs:CreateLogDelivery, GetLogDelivery, …, DescribeLogGroups) supports no resource-level permissions; aws-cdk-lib grants it so when the waiter logs (AWS Step Functions user guide, cw-logs)',
    },
    {
      id: 'AwsSolutions-SF2',
      reason:
        "The Provider framework's waiter state machine only retries isComplete every 10 s during a deploy; the installer's logs say what it did, X-Ray would add nothing",
    },
  );
}
