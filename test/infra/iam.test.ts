import { aws_iam as iam } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { WatcherImage } from '../../infra/parts/watcher-image';
import { PodliftStack } from '../../infra/stack';
import { normalStatement, statementsOfRole } from './policy-text';
import { removeTestApps, synthStack, TEST_IMAGE, testApp } from './test-app';

afterAll(removeTestApps);

const ec2 = (resource: string) => `arn:<Partition>:ec2:<Region>:*:${resource}`;
const INSTANCE_PROFILES = 'arn:<Partition>:iam::<AccountId>:instance-profile/*';
/** What CreateFleet and CreateLaunchTemplate create and tag. */
const CREATED = [
  ec2('fleet/*'),
  ec2('instance/*'),
  ec2('launch-template/*'),
  ec2('network-interface/*'),
  ec2('spot-instances-request/*'),
  ec2('volume/*'),
];

/** Every statement the functions' role gets from the controller policy, in a cluster named demo (EKS). */
const CONTROLLER_STATEMENTS = [
  {
    Sid: 'AllowScopedEC2InstanceAccessActions',
    Effect: 'Allow',
    Action: ['ec2:CreateFleet', 'ec2:RunInstances'],
    Resource: [
      ec2('capacity-reservation/*'),
      ec2('placement-group/*'),
      ec2('security-group/*'),
      ec2('subnet/*'),
      'arn:<Partition>:ec2:<Region>::image/*',
      'arn:<Partition>:ec2:<Region>::snapshot/*',
    ],
  },
  {
    Sid: 'AllowScopedEC2LaunchTemplateAccessActions',
    Effect: 'Allow',
    Action: ['ec2:CreateFleet', 'ec2:RunInstances'],
    Resource: [ec2('launch-template/*')],
    Condition: {
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    },
  },
  {
    Sid: 'AllowScopedEC2InstanceActionsWithTags',
    Effect: 'Allow',
    Action: ['ec2:CreateFleet', 'ec2:CreateLaunchTemplate', 'ec2:RunInstances'],
    Resource: CREATED,
    Condition: {
      StringEquals: {
        'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
        'aws:RequestTag/eks:eks-cluster-name': 'demo',
      },
      StringLike: { 'aws:RequestTag/karpenter.sh/nodepool': '*' },
    },
  },
  {
    Sid: 'AllowScopedResourceCreationTagging',
    Effect: 'Allow',
    Action: ['ec2:CreateTags'],
    Resource: CREATED,
    Condition: {
      StringEquals: {
        'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
        'aws:RequestTag/eks:eks-cluster-name': 'demo',
        'ec2:CreateAction': ['RunInstances', 'CreateFleet', 'CreateLaunchTemplate'],
      },
      StringLike: { 'aws:RequestTag/karpenter.sh/nodepool': '*' },
    },
  },
  {
    Sid: 'AllowScopedDeletion',
    Effect: 'Allow',
    Action: ['ec2:DeleteLaunchTemplate', 'ec2:TerminateInstances'],
    Resource: [ec2('instance/*'), ec2('launch-template/*')],
    Condition: {
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    },
  },
  {
    Sid: 'AllowRegionalReadActions',
    Effect: 'Allow',
    Action: [
      'ec2:DescribeCapacityReservations',
      'ec2:DescribeImages',
      'ec2:DescribeInstanceTypeOfferings',
      'ec2:DescribeInstanceTypes',
      'ec2:DescribeInstances',
      'ec2:DescribeLaunchTemplates',
      'ec2:DescribePlacementGroups',
      'ec2:DescribeSecurityGroups',
      'ec2:DescribeSpotPriceHistory',
      'ec2:DescribeSubnets',
    ],
    Resource: ['*'],
    Condition: { StringEquals: { 'aws:RequestedRegion': '<Region>' } },
  },
  {
    Sid: 'AllowSSMReadActions',
    Effect: 'Allow',
    Action: ['ssm:GetParameters'],
    Resource: ['arn:<Partition>:ssm:<Region>::parameter/aws/service/*'],
  },
  {
    Sid: 'AllowClusterParameterReads',
    Effect: 'Allow',
    Action: ['ssm:GetParametersByPath'],
    Resource: ['arn:<Partition>:ssm:<Region>:<AccountId>:parameter/podlift/demo/*'],
  },
  { Sid: 'AllowPricingReadActions', Effect: 'Allow', Action: ['pricing:GetProducts'], Resource: ['*'] },
  {
    Sid: 'AllowPassingInstanceRole',
    Effect: 'Allow',
    Action: ['iam:PassRole'],
    Resource: ['<PodliftNodeRole.Arn>'],
    Condition: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
  },
  {
    Sid: 'AllowScopedInstanceProfileCreationActions',
    Effect: 'Allow',
    Action: ['iam:CreateInstanceProfile'],
    Resource: [INSTANCE_PROFILES],
    Condition: {
      StringEquals: {
        'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
        'aws:RequestTag/eks:eks-cluster-name': 'demo',
        'aws:RequestTag/topology.kubernetes.io/region': '<Region>',
      },
      StringLike: { 'aws:RequestTag/karpenter.k8s.aws/ec2nodeclass': '*' },
    },
  },
  {
    Sid: 'AllowScopedInstanceProfileTagActions',
    Effect: 'Allow',
    Action: ['iam:TagInstanceProfile'],
    Resource: [INSTANCE_PROFILES],
    Condition: {
      StringEquals: {
        'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned',
        'aws:ResourceTag/topology.kubernetes.io/region': '<Region>',
        'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
        'aws:RequestTag/eks:eks-cluster-name': 'demo',
        'aws:RequestTag/topology.kubernetes.io/region': '<Region>',
      },
      StringLike: {
        'aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass': '*',
        'aws:RequestTag/karpenter.k8s.aws/ec2nodeclass': '*',
      },
    },
  },
  {
    Sid: 'AllowScopedInstanceProfileActions',
    Effect: 'Allow',
    Action: ['iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile'],
    Resource: [INSTANCE_PROFILES],
    Condition: {
      StringEquals: {
        'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned',
        'aws:ResourceTag/topology.kubernetes.io/region': '<Region>',
      },
      StringLike: { 'aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass': '*' },
    },
  },
  {
    Sid: 'AllowInstanceProfileReadActions',
    Effect: 'Allow',
    Action: ['iam:GetInstanceProfile'],
    Resource: ['arn:<Partition>:iam::<AccountId>:instance-profile/*'],
  },
  {
    Sid: 'AllowClusterBusPublishing',
    Effect: 'Allow',
    Action: ['events:PutEvents'],
    Resource: ['<PodliftRoutingBus.Arn>'],
  },
];

const EKS_DISCOVERY = {
  Sid: 'AllowAPIServerEndpointDiscovery',
  Effect: 'Allow',
  Action: ['eks:DescribeCluster'],
  Resource: ['arn:<Partition>:eks:<Region>:<AccountId>:cluster/demo'],
};

/** What the functions' role gets besides the controller policy: its log groups and the queue (SqsEventSource). */
const FUNCTION_ROLE_DEFAULT_STATEMENTS = [
  {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: [
      '<PodliftFunctionsDisruptionLogs.Arn>',
      '<PodliftFunctionsInterruptionLogs.Arn>',
      '<PodliftFunctionsProvisionerLogs.Arn>',
    ],
  },
  {
    Effect: 'Allow',
    Action: [
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ],
    Resource: ['<PodliftRoutingInterruptionQueue.Arn>'],
  },
];

/** Every statement of the termination function's role (EKS): list, terminate, read its parameters, nothing else. */
const TERMINATION_STATEMENTS = [
  {
    Sid: 'AllowScopedInstanceTermination',
    Effect: 'Allow',
    Action: ['ec2:TerminateInstances'],
    Resource: [ec2('instance/*')],
    Condition: {
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    },
  },
  {
    Sid: 'AllowScopedLaunchTemplateDeletion',
    Effect: 'Allow',
    Action: ['ec2:DeleteLaunchTemplate'],
    Resource: [ec2('launch-template/*')],
    Condition: {
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    },
  },
  {
    Sid: 'AllowRegionalInstanceReads',
    Effect: 'Allow',
    Action: ['ec2:DescribeInstances', 'ec2:DescribeInstanceStatus', 'ec2:DescribeLaunchTemplates'],
    Resource: ['*'],
    Condition: { StringEquals: { 'aws:RequestedRegion': '<Region>' } },
  },
  {
    Sid: 'AllowScopedInstanceProfileDeletion',
    Effect: 'Allow',
    Action: ['iam:RemoveRoleFromInstanceProfile', 'iam:DeleteInstanceProfile'],
    Resource: ['arn:<Partition>:iam::<AccountId>:instance-profile/*'],
    Condition: {
      StringEquals: {
        'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned',
        'aws:ResourceTag/topology.kubernetes.io/region': '<Region>',
      },
      StringLike: { 'aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass': '*' },
    },
  },
  {
    Sid: 'AllowInstanceProfileListAndRead',
    Effect: 'Allow',
    Action: ['iam:ListInstanceProfiles', 'iam:GetInstanceProfile'],
    Resource: ['arn:<Partition>:iam::<AccountId>:instance-profile/*'],
  },
  {
    Sid: 'AllowClusterParameterReads',
    Effect: 'Allow',
    Action: ['ssm:GetParametersByPath'],
    Resource: ['arn:<Partition>:ssm:<Region>:<AccountId>:parameter/podlift/demo/*'],
  },
  EKS_DISCOVERY,
  {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: ['<PodliftFunctionsTerminationLogs.Arn>'],
  },
];

/** Orders statements by their canonical text (keys sorted), whatever order the keys were written in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
const bySid = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  canonical(a).localeCompare(canonical(b));

describe('IAM: every statement, exactly', () => {
  it("gives the functions' role Karpenter's controller statements scoped to the cluster, and nothing else (EKS)", () => {
    const { template } = synthStack();
    const expected = [...CONTROLLER_STATEMENTS, EKS_DISCOVERY, ...FUNCTION_ROLE_DEFAULT_STATEMENTS].map(
      normalStatement,
    );
    expect(statementsOfRole(template, 'PodliftFunctionsRole').sort(bySid)).toEqual(expected.sort(bySid));
  });

  it("gives the termination function's own role only what termination calls: no launch, tag, PassRole or IAM", () => {
    const { template } = synthStack();
    expect(statementsOfRole(template, 'PodliftTerminationRole').sort(bySid)).toEqual(
      TERMINATION_STATEMENTS.map(normalStatement).sort(bySid),
    );
  });

  it('in kOps mode reads the access parameter (and decrypts with its key) instead of DescribeCluster', () => {
    const { template } = synthStack({
      clusterAccess: { kind: 'kops', parameterKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/abc' },
    });
    const kops = [
      {
        Sid: 'AllowKopsAccessParameterRead',
        Effect: 'Allow',
        Action: ['ssm:GetParameter'],
        Resource: ['arn:<Partition>:ssm:<Region>:<AccountId>:parameter/podlift/demo/cluster'],
      },
      {
        Sid: 'AllowKopsAccessParameterDecrypt',
        Effect: 'Allow',
        Action: ['kms:Decrypt'],
        Resource: ['arn:aws:kms:us-east-1:123456789012:key/abc'],
        Condition: { StringEquals: { 'kms:ViaService': 'ssm.<Region>.amazonaws.com' } },
      },
    ];
    const expected = [...CONTROLLER_STATEMENTS, ...kops, ...FUNCTION_ROLE_DEFAULT_STATEMENTS].map(
      normalStatement,
    );
    expect(statementsOfRole(template, 'PodliftFunctionsRole').sort(bySid)).toEqual(expected.sort(bySid));
  });

  it("allows the watcher's role only events:PutEvents on the cluster's bus, assumed through EKS Pod Identity of this account, cluster and service account", () => {
    const { template } = synthStack();
    expect(statementsOfRole(template, 'PodliftIdentitiesWatcherRole')).toEqual([
      { Effect: 'Allow', Action: ['events:PutEvents'], Resource: ['<PodliftRoutingBus.Arn>'] },
    ]);
    const roles = template.findResources('AWS::IAM::Role');
    const watcher = Object.entries(roles).find(([id]) => id.startsWith('PodliftIdentitiesWatcherRole'));
    expect(watcher?.[1].Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: ['sts:AssumeRole', 'sts:TagSession'],
        Effect: 'Allow',
        Principal: { Service: 'pods.eks.amazonaws.com' },
        Condition: {
          StringEquals: {
            'aws:SourceAccount': { Ref: 'AWS::AccountId' },
            'aws:RequestTag/eks-cluster-arn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':eks:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':cluster/demo',
                ],
              ],
            },
            'aws:RequestTag/kubernetes-namespace': 'podlift',
            'aws:RequestTag/kubernetes-service-account': 'podlift-watcher',
          },
        },
      },
    ]);
  });

  it('trusts the watcher through the OIDC issuer, for its service account only, in kOps mode with IRSA', () => {
    const { template } = synthStack({
      clusterAccess: {
        kind: 'kops',
        watcherOidcProvider: {
          providerArn: 'arn:aws:iam::123456789012:oidc-provider/oidc.example.com/demo',
          issuer: 'https://oidc.example.com/demo',
        },
      },
    });
    const roles = template.findResources('AWS::IAM::Role');
    const watcher = Object.entries(roles).find(([id]) => id.startsWith('PodliftIdentitiesWatcherRole'));
    expect(watcher?.[1].Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRoleWithWebIdentity',
        Effect: 'Allow',
        Principal: { Federated: 'arn:aws:iam::123456789012:oidc-provider/oidc.example.com/demo' },
        Condition: {
          StringEquals: {
            'oidc.example.com/demo:sub': 'system:serviceaccount:podlift:podlift-watcher',
            'oidc.example.com/demo:aud': 'sts.amazonaws.com',
          },
        },
      },
    ]);
    template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    template.resourceCountIs('AWS::EKS::PodIdentityAssociation', 0);
  });

  it("gives the installer's role DescribeCluster on its cluster and its own log groups, nothing else in IAM", () => {
    const { template } = synthStack();
    expect(statementsOfRole(template, 'PodliftInstallRole')).toEqual([
      {
        Sid: 'DescribeTheCluster',
        Effect: 'Allow',
        Action: ['eks:DescribeCluster'],
        Resource: ['arn:<Partition>:eks:<Region>:<AccountId>:cluster/demo'],
      },
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: ['<PodliftInstallIsCompleteLogs.Arn>', '<PodliftInstallOnEventLogs.Arn>'],
      },
    ]);
  });

  it('grant helpers give exactly what they name', () => {
    const stack = new PodliftStack(testApp(), 'Podlift-demo', {
      podlift: { clusterName: 'demo', watcherImage: WatcherImage.fromUri(TEST_IMAGE) },
    });
    const operator = new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() });
    stack.podlift.grantPassNodeRole(operator);
    stack.podlift.grantConsumeDeadLetters(operator);
    stack.podlift.grantPutEvents(operator);
    const statements = statementsOfRole(Template.fromStack(stack), 'Operator');
    expect(statements.sort(bySid)).toEqual(
      [
        {
          Effect: 'Allow',
          Action: ['iam:PassRole'],
          Resource: ['<PodliftNodeRole.Arn>'],
          Condition: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
        },
        {
          Effect: 'Allow',
          Action: [
            'sqs:ChangeMessageVisibility',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            'sqs:GetQueueUrl',
            'sqs:ReceiveMessage',
          ],
          Resource: ['<PodliftRoutingInterruptionDeadLetterQueue.Arn>'],
        },
        { Effect: 'Allow', Action: ['events:PutEvents'], Resource: ['<PodliftRoutingBus.Arn>'] },
      ]
        .map(normalStatement)
        .sort(bySid),
    );
  });

  it('has no inline or managed policy on any other role than those listed', () => {
    const { template } = synthStack();
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const roles = policies.flatMap((p) =>
      (p.Properties.Roles as { Ref: string }[]).map((r) => r.Ref.slice(0, -8)),
    );
    // The installer's role, and the roles aws-cdk-lib's Provider framework makes for its own
    // functions and waiter (they invoke the installer's functions and log; see infra/nag.ts).
    expect([...new Set(roles)].sort()).toEqual([
      'PodliftFunctionsRole',
      'PodliftIdentitiesWatcherRole',
      'PodliftInstallProviderframeworkisCompleteServiceRole',
      'PodliftInstallProviderframeworkonEventServiceRole',
      'PodliftInstallProviderframeworkonTimeoutServiceRole',
      'PodliftInstallProviderwaiterstatemachineRole',
      'PodliftInstallRole',
      'PodliftTerminationRole',
    ]);
    template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
  });
});
