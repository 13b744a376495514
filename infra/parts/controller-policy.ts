import { Aws, aws_iam as iam } from 'aws-cdk-lib';
import { LABEL_NODECLASS, LABEL_NODEPOOL, LABEL_REGION } from '../../shared/core/model/labels';

/** What the functions' statements are scoped to. */
export interface ControllerPolicyScope {
  readonly clusterName: string;
  readonly nodeRoleArn: string;
  readonly eventBusArn: string;
  /** kOps mode: the access parameter the functions read instead of DescribeCluster. */
  readonly kopsParameterArn?: string;
  /** kOps mode with a customer-managed key on that parameter. */
  readonly kopsParameterKeyArn?: string;
}

const ec2 = (resource: string, account = '*') =>
  `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${account}:${resource}`;
/**
 * The tag naming the EKS cluster on everything podlift creates (shared/aws/fleet/launch-tags.ts
 * TAG_EKS_CLUSTER_NAME; infra imports core only). The simulator's IAM evaluation denies every
 * launch if the two ever differ.
 */
const TAG_EKS_CLUSTER_NAME = 'eks:eks-cluster-name';
/** Every instance profile of this account (IAM is global: no region in the ARN). */
const instanceProfiles = `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:instance-profile/*`;

/**
 * The functions' IAM statements, matched to Karpenter's controller policy
 * (aws/karpenter-provider-aws, website/content/en/preview/getting-started/getting-started-with-karpenter/
 * cloudformation.yaml, `KarpenterControllerPolicy`), statement by statement, with podlift's own
 * tag keys (shared/aws/fleet/launch-tags.ts, shared/aws/launch-templates/launch-template-data.ts,
 * shared/aws/nodeclass/instance-profile-name.ts) and only the actions podlift's code calls:
 *
 * - no `AllowScopedResourceTagging` (podlift never calls CreateTags after launch: the NodeClaim
 *   and Name tags are set by CreateFleet) and no `iam:DeleteInstanceProfile` here: garbage
 *   collection of instance profiles and launch templates runs in the termination function, whose
 *   role alone may delete them ({@link terminationStatements});
 * - Describe* lists only the calls podlift makes (no DescribeAvailabilityZones);
 * - no `capacity-reservation/*` launch resource: podlift never launches into a reservation;
 * - `iam:PassedToService` only `ec2.amazonaws.com` (Karpenter adds the China partition's name);
 * - SSM reads split: the public AMI parameters (`GetParameters`, what amis.ts calls), the
 *   cluster's NodePool parameters (`GetParametersByPath`), and in kOps mode the access parameter;
 * - the interruption queue's actions come from the SQS event source (sqs-consume), and
 *   events:PutEvents on the cluster's bus replaces nothing of Karpenter's (it has no bus).
 *
 * Every statement has a Sid so `@aws-cdk/aws-iam:minimizePolicies` never merges two of them.
 */
export function controllerStatements(scope: ControllerPolicyScope): iam.PolicyStatement[] {
  const clusterTag = `kubernetes.io/cluster/${scope.clusterName}`;
  const requestTagged = {
    StringEquals: {
      [`aws:RequestTag/${clusterTag}`]: 'owned',
      [`aws:RequestTag/${TAG_EKS_CLUSTER_NAME}`]: scope.clusterName,
    },
    StringLike: { [`aws:RequestTag/${LABEL_NODEPOOL}`]: '*' },
  };
  // What CreateFleet and CreateLaunchTemplate create, each tagged at creation: the fleet, the
  // instances and their volumes (fleet-request.ts TagSpecifications), the network interfaces and,
  // for spot launches, the spot requests (launch-template-data.ts launchedResourceTags), and the
  // launch template itself (launch-template-provider.ts).
  const created = [
    ec2('fleet/*'),
    ec2('instance/*'),
    ec2('volume/*'),
    ec2('network-interface/*'),
    ec2('launch-template/*'),
    ec2('spot-instances-request/*'),
  ];
  const statements = [
    new iam.PolicyStatement({
      sid: 'AllowScopedEC2InstanceAccessActions',
      actions: ['ec2:RunInstances', 'ec2:CreateFleet'],
      resources: [
        `arn:${Aws.PARTITION}:ec2:${Aws.REGION}::image/*`,
        `arn:${Aws.PARTITION}:ec2:${Aws.REGION}::snapshot/*`,
        ec2('security-group/*'),
        ec2('subnet/*'),
        // An EC2NodeClass's placementGroupSelector puts the group on the launch template.
        ec2('placement-group/*'),
        // Launch templates of reserved launches target a reservation capacityReservationSelectorTerms chose.
        ec2('capacity-reservation/*'),
      ],
    }),
    new iam.PolicyStatement({
      // Launching from a template is allowed only from the cluster's own templates.
      sid: 'AllowScopedEC2LaunchTemplateAccessActions',
      actions: ['ec2:RunInstances', 'ec2:CreateFleet'],
      resources: [ec2('launch-template/*')],
      conditions: {
        StringEquals: { [`aws:ResourceTag/${clusterTag}`]: 'owned' },
        StringLike: { [`aws:ResourceTag/${LABEL_NODEPOOL}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedEC2InstanceActionsWithTags',
      actions: ['ec2:RunInstances', 'ec2:CreateFleet', 'ec2:CreateLaunchTemplate'],
      resources: created,
      conditions: requestTagged,
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedResourceCreationTagging',
      actions: ['ec2:CreateTags'],
      resources: created,
      conditions: {
        StringEquals: {
          ...requestTagged.StringEquals,
          'ec2:CreateAction': ['RunInstances', 'CreateFleet', 'CreateLaunchTemplate'],
        },
        StringLike: requestTagged.StringLike,
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedDeletion',
      actions: ['ec2:TerminateInstances', 'ec2:DeleteLaunchTemplate'],
      resources: [ec2('instance/*'), ec2('launch-template/*')],
      conditions: {
        StringEquals: { [`aws:ResourceTag/${clusterTag}`]: 'owned' },
        StringLike: { [`aws:ResourceTag/${LABEL_NODEPOOL}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowRegionalReadActions',
      actions: [
        'ec2:DescribeCapacityReservations',
        'ec2:DescribeImages',
        'ec2:DescribeInstances',
        'ec2:DescribeInstanceTypeOfferings',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeLaunchTemplates',
        'ec2:DescribePlacementGroups',
        'ec2:DescribeSecurityGroups',
        'ec2:DescribeSpotPriceHistory',
        'ec2:DescribeSubnets',
      ],
      // EC2 Describe* calls support no resource-level permissions.
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowSSMReadActions',
      actions: ['ssm:GetParameters'],
      resources: [`arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter/aws/service/*`],
    }),
    clusterParameterReads(scope),
    new iam.PolicyStatement({
      sid: 'AllowPricingReadActions',
      actions: ['pricing:GetProducts'],
      // The Price List API has no resource-level permissions.
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'AllowPassingInstanceRole',
      actions: ['iam:PassRole'],
      resources: [scope.nodeRoleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceProfileCreationActions',
      actions: ['iam:CreateInstanceProfile'],
      // CreateInstanceProfile is authorised on the new profile's ARN, in this account.
      resources: [instanceProfiles],
      conditions: {
        StringEquals: {
          [`aws:RequestTag/${clusterTag}`]: 'owned',
          [`aws:RequestTag/${TAG_EKS_CLUSTER_NAME}`]: scope.clusterName,
          [`aws:RequestTag/${LABEL_REGION}`]: Aws.REGION,
        },
        StringLike: { [`aws:RequestTag/${LABEL_NODECLASS}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      // CreateInstanceProfile with Tags also needs iam:TagInstanceProfile.
      sid: 'AllowScopedInstanceProfileTagActions',
      actions: ['iam:TagInstanceProfile'],
      resources: [instanceProfiles],
      conditions: {
        StringEquals: {
          [`aws:ResourceTag/${clusterTag}`]: 'owned',
          [`aws:ResourceTag/${LABEL_REGION}`]: Aws.REGION,
          [`aws:RequestTag/${clusterTag}`]: 'owned',
          [`aws:RequestTag/${TAG_EKS_CLUSTER_NAME}`]: scope.clusterName,
          [`aws:RequestTag/${LABEL_REGION}`]: Aws.REGION,
        },
        StringLike: {
          [`aws:ResourceTag/${LABEL_NODECLASS}`]: '*',
          [`aws:RequestTag/${LABEL_NODECLASS}`]: '*',
        },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceProfileActions',
      actions: ['iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile'],
      resources: [instanceProfiles],
      conditions: {
        StringEquals: {
          [`aws:ResourceTag/${clusterTag}`]: 'owned',
          [`aws:ResourceTag/${LABEL_REGION}`]: Aws.REGION,
        },
        StringLike: { [`aws:ResourceTag/${LABEL_NODECLASS}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowInstanceProfileReadActions',
      actions: ['iam:GetInstanceProfile'],
      resources: [instanceProfiles],
    }),
    new iam.PolicyStatement({
      sid: 'AllowClusterBusPublishing',
      actions: ['events:PutEvents'],
      resources: [scope.eventBusArn],
    }),
  ];
  statements.push(...clusterAccessStatements(scope));
  return statements;
}

/**
 * How a function reaches the API server: eks:DescribeCluster on this cluster (the bearer token
 * is a presigned STS call and needs no permission), or in kOps mode the access parameter.
 */
function clusterAccessStatements(scope: ControllerPolicyScope): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  if (scope.kopsParameterArn === undefined) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'AllowAPIServerEndpointDiscovery',
        actions: ['eks:DescribeCluster'],
        resources: [`arn:${Aws.PARTITION}:eks:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${scope.clusterName}`],
      }),
    );
  } else {
    statements.push(
      new iam.PolicyStatement({
        sid: 'AllowKopsAccessParameterRead',
        actions: ['ssm:GetParameter'],
        resources: [scope.kopsParameterArn],
      }),
    );
    if (scope.kopsParameterKeyArn !== undefined) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'AllowKopsAccessParameterDecrypt',
          actions: ['kms:Decrypt'],
          resources: [scope.kopsParameterKeyArn],
          conditions: { StringEquals: { 'kms:ViaService': `ssm.${Aws.REGION}.amazonaws.com` } },
        }),
      );
    }
  }
  return statements;
}

/**
 * The termination function's statements: it lists the cluster's instances and terminates them,
 * garbage-collects the cluster's launch templates and instance profiles
 * (shared/aws/launch-templates/launch-template-provider.ts, shared/aws/nodeclass/instance-profile-inventory.ts),
 * and reads what every loop reads (the API server's access, the NodePool parameters). It never
 * launches, tags or passes a role, so its role cannot either. Deletions carry Karpenter's
 * conditions: launch templates by the cluster and NodePool tags (AllowScopedDeletion), instance
 * profiles by the cluster, region and EC2NodeClass tags (AllowScopedInstanceProfileActions);
 * listing instance profiles is unscoped in Karpenter's policy too (AllowUnscopedInstanceProfileListAction),
 * here limited to this account's profiles.
 */
export function terminationStatements(scope: ControllerPolicyScope): iam.PolicyStatement[] {
  const clusterTag = `kubernetes.io/cluster/${scope.clusterName}`;
  return [
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceTermination',
      actions: ['ec2:TerminateInstances'],
      resources: [ec2('instance/*')],
      conditions: {
        StringEquals: { [`aws:ResourceTag/${clusterTag}`]: 'owned' },
        StringLike: { [`aws:ResourceTag/${LABEL_NODEPOOL}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedLaunchTemplateDeletion',
      actions: ['ec2:DeleteLaunchTemplate'],
      resources: [ec2('launch-template/*')],
      conditions: {
        StringEquals: { [`aws:ResourceTag/${clusterTag}`]: 'owned' },
        StringLike: { [`aws:ResourceTag/${LABEL_NODEPOOL}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowRegionalInstanceReads',
      // DescribeInstanceStatus: instance health (termination reads it every minute, as
      // Karpenter's interruption.instancestatus controller does).
      actions: ['ec2:DescribeInstances', 'ec2:DescribeInstanceStatus', 'ec2:DescribeLaunchTemplates'],
      // EC2 Describe* calls support no resource-level permissions.
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceProfileDeletion',
      actions: ['iam:RemoveRoleFromInstanceProfile', 'iam:DeleteInstanceProfile'],
      resources: [instanceProfiles],
      conditions: {
        StringEquals: {
          [`aws:ResourceTag/${clusterTag}`]: 'owned',
          [`aws:ResourceTag/${LABEL_REGION}`]: Aws.REGION,
        },
        StringLike: { [`aws:ResourceTag/${LABEL_NODECLASS}`]: '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowInstanceProfileListAndRead',
      actions: ['iam:ListInstanceProfiles', 'iam:GetInstanceProfile'],
      resources: [instanceProfiles],
    }),
    clusterParameterReads(scope),
    ...clusterAccessStatements(scope),
  ];
}

function clusterParameterReads(scope: ControllerPolicyScope): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'AllowClusterParameterReads',
    actions: ['ssm:GetParametersByPath'],
    resources: [
      `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter/podlift/${scope.clusterName}/*`,
    ],
  });
}
