import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { installManifests } from '../../infra/parts/install-manifests';
import { removeTestApps, synthStack, TEST_IMAGE } from './test-app';

afterAll(removeTestApps);

describe('the manifests custom resource', () => {
  const { template, stack } = synthStack();
  const manifests = installManifests();

  it('installs manifests/ with the stack values through the Provider framework', () => {
    template.hasResourceProperties('Custom::PodliftManifests', {
      ServiceToken: Match.anyValue(),
      ClusterName: 'demo',
      EventBusName: { Ref: Match.stringLikeRegexp('Bus') },
      Region: { Ref: 'AWS::Region' },
      WatcherImage: TEST_IMAGE,
      ManifestsDigest: manifests.digest,
      Objects: [...manifests.objects],
    });
    // onEvent and isComplete of the installer, plus the framework's onEvent, isComplete, onTimeout.
    template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.onEvent' });
    template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.isComplete' });
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
  });

  it("gives the installer's role an access entry with the cluster admin access policy, and DescribeCluster", () => {
    const roleId = stack.resolve(stack.getLogicalId(stack.podlift.install!.role.node.defaultChild as never));
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'demo',
      PrincipalArn: { 'Fn::GetAtt': [roleId, 'Arn'] },
      Type: 'STANDARD',
      AccessPolicies: [
        {
          PolicyArn: {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy',
              ],
            ],
          },
          AccessScope: { Type: 'cluster' },
        },
      ],
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Sid: 'DescribeTheCluster', Action: 'eks:DescribeCluster', Effect: 'Allow' }),
        ]),
      },
    });
  });

  it('runs after the access entries and the Pod Identity association exist', () => {
    const [resource] = Object.values(template.findResources('Custom::PodliftManifests')) as {
      DependsOn: string[];
    }[];
    const entries = Object.keys(template.findResources('AWS::EKS::AccessEntry'));
    const association = Object.keys(template.findResources('AWS::EKS::PodIdentityAssociation'));
    expect(resource?.DependsOn).toEqual(expect.arrayContaining([...entries, ...association]));
  });

  it('waits for the watcher by polling isComplete every 10 s for up to 10 minutes', () => {
    const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as {
      Properties: { DefinitionString: unknown };
    }[];
    const definition = JSON.stringify(stack.resolve(machine?.Properties.DefinitionString));
    expect(definition).toContain('\\"IntervalSeconds\\":10');
    expect(definition).toContain('\\"MaxAttempts\\":60');
  });

  it('prints that the manifests are installed instead of a command to apply them', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toContain('ManifestsInstalled');
    expect(outputs).not.toContain('ApplyManifestsCommand');
  });
});

describe('without the installer', () => {
  it('installManifests: false leaves it out and prints the command to apply manifests/', () => {
    const { template } = synthStack({ installManifests: false });
    template.resourceCountIs('Custom::PodliftManifests', 0);
    expect(Object.keys(template.findOutputs('*'))).toContain('ApplyManifestsCommand');
  });

  it('kOps mode has no installer (no access entries there) and prints the one command instead', () => {
    const { stack, template } = synthStack({
      clusterAccess: {
        kind: 'kops',
        parameterKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/k',
        watcherOidcProvider: { providerArn: 'arn:aws:iam::123456789012:oidc-provider/o', issuer: 'o' },
      },
    });
    template.resourceCountIs('Custom::PodliftManifests', 0);
    const outputs = template.findOutputs('*');
    expect(outputs).not.toHaveProperty('ApplyManifestsCommand');
    const command = stack.resolve(outputs.InstallManifestsCommand?.Value) as {
      'Fn::Join': [string, unknown[]];
    };
    const text = command['Fn::Join'][1]
      .map((p) =>
        typeof p === 'string' ? p : JSON.stringify(p).includes('Bus') ? '<bus>' : '<watcher-role>',
      )
      .join('');
    expect(text).toBe(
      `npx podlift install --kops --cluster demo --region us-east-1 --event-bus <bus> --image ${TEST_IMAGE} --watcher-role-arn <watcher-role> --key-id arn:aws:kms:us-east-1:123456789012:key/k`,
    );
  });

  it('refuses installManifests in kOps mode, naming the prop', () => {
    expect(() => synthStack({ clusterAccess: { kind: 'kops' }, installManifests: true })).toThrow(
      /^Podlift: props.installManifests true needs an EKS cluster/,
    );
  });
});
