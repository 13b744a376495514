import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { FUNCTION_ENVIRONMENT } from '../../functions/config';
import { removeTestApps, synthStack, TEST_IMAGE } from './test-app';

afterAll(removeTestApps);

const { template } = synthStack();

describe('the cluster bus and the interruption queue', () => {
  it('names the bus after the cluster', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'podlift-demo' });
  });

  it('keeps interruption messages 300 s, encrypted, invisible for one function timeout (45 s, the least Lambda accepts), then a DLQ', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 300,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 45,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('InterruptionDeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 3,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 1209600,
      SqsManagedSseEnabled: true,
    });
  });

  it('denies non-TLS access to both queues and lets only the five default-bus rules send', () => {
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(2);
    for (const policy of policies) {
      expect(policy.Properties.PolicyDocument.Statement[0]).toMatchObject({
        Effect: 'Deny',
        Action: 'sqs:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
    }
    const sends = policies.flatMap((p) =>
      p.Properties.PolicyDocument.Statement.filter((s: { Effect: string }) => s.Effect === 'Allow'),
    );
    expect(sends).toHaveLength(5);
    for (const send of sends) {
      expect(send).toMatchObject({
        Principal: { Service: 'events.amazonaws.com' },
        Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [expect.any(String), 'Arn'] } } },
      });
    }
  });
});

describe('the functions', () => {
  // The four control loops (the installer and the Provider framework's functions are test/infra/install.test.ts's).
  const functions = Object.fromEntries(
    Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith('PodliftFunctions'),
    ),
  );
  const byName = (name: string) =>
    Object.entries(functions).find(([id]) => id.startsWith(`PodliftFunctions${name}`))?.[1].Properties;

  it('run with the launching role, termination with its own', () => {
    const roleOf = (name: string) => byName(name)?.Role['Fn::GetAtt'][0] as string;
    for (const name of ['Provisioner', 'Interruption', 'Disruption'])
      expect(roleOf(name)).toMatch(/^PodliftFunctionsRole/);
    expect(roleOf('Termination')).toMatch(/^PodliftTerminationRole/);
  });

  it('are four Node.js 22 arm64 ESM bundles with handler index.handler', () => {
    expect(Object.keys(functions)).toHaveLength(4);
    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
    }
  });

  it('sets exactly the variables functions/config.ts reads (AWS_REGION is Lambda’s), plus source maps', () => {
    const expected = Object.keys(FUNCTION_ENVIRONMENT).filter((k) => k !== 'AWS_REGION');
    for (const fn of Object.values(functions)) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      expect(Object.keys(variables).sort()).toEqual([...expected, 'NODE_OPTIONS'].sort());
      expect(variables).toMatchObject({
        CLUSTER_NAME: 'demo',
        EVENT_BUS_NAME: { Ref: expect.stringMatching(/^PodliftRoutingBus/) },
        CLUSTER_ACCESS: 'eks',
        LEASE_NAMESPACE: 'podlift',
        LEASE_NAME: 'podlift',
        REBALANCE_ACTION: 'event',
        FEATURE_GATES:
          'NodeRepair=false,SpotToSpotConsolidation=false,ReservedCapacity=true,GlobalConsolidation=false,PodDeletionCostManagement=false,CandidateTaint=false',
        NODE_OPTIONS: '--enable-source-maps',
      });
    }
  });

  it('sizes each function and reserves one concurrent run for the Lease holders', () => {
    expect(byName('Provisioner')).toMatchObject({
      MemorySize: 1024,
      Timeout: 60,
      ReservedConcurrentExecutions: 1,
    });
    expect(byName('Disruption')).toMatchObject({
      MemorySize: 1024,
      Timeout: 60,
      ReservedConcurrentExecutions: 1,
    });
    expect(byName('Interruption')).toMatchObject({ MemorySize: 1024, Timeout: 45 });
    expect(byName('Interruption')?.ReservedConcurrentExecutions).toBeUndefined();
    expect(byName('Termination')).toMatchObject({ MemorySize: 512, Timeout: 60 });
  });

  it('logs as JSON to their own log groups, kept a month', () => {
    const groups = Object.keys(template.findResources('AWS::Logs::LogGroup'));
    expect(groups.filter((id) => id.startsWith('PodliftFunctions'))).toHaveLength(4);
    for (const group of Object.values(template.findResources('AWS::Logs::LogGroup'))) {
      expect(group.Properties.RetentionInDays).toBe(30);
    }
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.LoggingConfig).toEqual({
        LogFormat: 'JSON',
        LogGroup: { Ref: expect.stringMatching(/^PodliftFunctions\w+Logs/) },
      });
    }
  });

  it('may be invoked by EventBridge only from their own rules', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map(
      (p) => p.Properties,
    );
    const rules = Object.entries(template.findResources('AWS::Events::Rule'));
    // One permission per rule that targets a function: four on the cluster bus, three schedules.
    const functionRules = rules.filter(([, r]) =>
      JSON.stringify(r.Properties.Targets).includes('PodliftFunctions'),
    );
    expect(functionRules).toHaveLength(7);
    expect(permissions).toHaveLength(7);
    for (const [ruleId, rule] of functionRules) {
      const fn = rule.Properties.Targets[0].Arn['Fn::GetAtt'][0];
      expect(permissions).toContainEqual({
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
      });
    }
  });

  it('feed the interruption function from the queue with partial batch responses', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PodliftRoutingInterruptionQueue'), 'Arn'] },
      FunctionName: { Ref: Match.stringLikeRegexp('^PodliftFunctionsInterruption') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });
});

describe('identities', () => {
  it('creates the node role with the four worker policies and its instance profile', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      RoleName: 'PodliftNodeRole-demo',
      AssumeRolePolicyDocument: {
        Statement: [
          { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' } },
        ],
      },
      ManagedPolicyArns: [
        'AmazonEKSWorkerNodePolicy',
        'AmazonEKS_CNI_Policy',
        'AmazonEC2ContainerRegistryPullOnly',
        'AmazonSSMManagedInstanceCore',
      ].map((name) => ({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::aws:policy/${name}`]],
      })),
    });
    template.resourceCountIs('AWS::IAM::InstanceProfile', 1);
    template.hasResourceProperties('AWS::IAM::InstanceProfile', {
      Roles: [{ Ref: Match.stringLikeRegexp('^PodliftNodeRole') }],
    });
  });

  it('maps the node role as EC2_LINUX, the launching role to podlift:functions and termination to podlift:termination (no access policy)', () => {
    // The fourth is the installer's (test/infra/install.test.ts).
    template.resourceCountIs('AWS::EKS::AccessEntry', 4);
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'demo',
      Type: 'EC2_LINUX',
      PrincipalArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PodliftNodeRole'), 'Arn'] },
    });
    const standard = Object.values(template.findResources('AWS::EKS::AccessEntry'))
      .filter((e) => e.Properties.Type === 'STANDARD' && e.Properties.AccessPolicies === undefined)
      .map((e) => e.Properties);
    expect(standard).toEqual(
      [
        ['PodliftFunctionsRole', 'podlift:functions'],
        ['PodliftTerminationRole', 'podlift:termination'],
      ].map(([role, group]) => ({
        ClusterName: 'demo',
        Type: 'STANDARD',
        KubernetesGroups: [group],
        PrincipalArn: { 'Fn::GetAtt': [expect.stringMatching(new RegExp(`^${role}[0-9A-F]{8}$`)), 'Arn'] },
      })),
    );
  });

  it("associates the watcher's service account with its role through Pod Identity", () => {
    template.hasResourceProperties('AWS::EKS::PodIdentityAssociation', {
      ClusterName: 'demo',
      Namespace: 'podlift',
      ServiceAccount: 'podlift-watcher',
      RoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PodliftIdentitiesWatcherRole'), 'Arn'] },
    });
  });
});

describe('outputs', () => {
  it('gives the bus, queue, roles, image and that manifests/ is installed', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(
      [
        'ManifestsInstalled',
        'EventBusName',
        'FunctionsRoleArn',
        'InstanceProfileName',
        'InterruptionQueueUrl',
        'NodeRoleArn',
        'NodeRoleName',
        'TerminationRoleArn',
        'WatcherImageUri',
        'WatcherRoleArn',
      ].sort(),
    );
  });

  it('gives the command that applies manifests/ when the stack does not install them', () => {
    const { stack, template } = synthStack({ installManifests: false });
    const outputs = template.findOutputs('*');
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'ApplyManifestsCommand',
        'EventBusName',
        'FunctionsRoleArn',
        'InstanceProfileName',
        'InterruptionQueueUrl',
        'NodeRoleArn',
        'NodeRoleName',
        'TerminationRoleArn',
        'WatcherImageUri',
        'WatcherRoleArn',
      ].sort(),
    );
    expect(outputs.WatcherImageUri.Value).toBe(TEST_IMAGE);
    const command = stack.resolve(outputs.ApplyManifestsCommand.Value) as { 'Fn::Join': [string, unknown[]] };
    const text = command['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : '<bus>')).join('');
    expect(text).toBe(
      `cd manifests && kustomize edit set image podlift/watcher=${TEST_IMAGE} && sed -i -e 's|CLUSTER_NAME=.*|CLUSTER_NAME=demo|' -e 's|EVENT_BUS_NAME=.*|EVENT_BUS_NAME=<bus>|' -e 's|AWS_REGION=.*|AWS_REGION=us-east-1|' kustomization.yaml && kubectl apply -k .`,
    );
  });
});
