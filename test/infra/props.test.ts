import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { podliftPropsFromContext } from '../../infra/context';
import { nodePoolParameters } from '../../infra/parts/node-pool-parameters';
import { WatcherImage } from '../../infra/parts/watcher-image';
import { resolveProps } from '../../infra/props';
import { PodliftStack } from '../../infra/stack';
import { removeTestApps, synthStack, testApp } from './test-app';

const dir = mkdtempSync(join(tmpdir(), 'podlift-nodepools-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeTestApps();
});

const NODE_CLASS = {
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default' },
  spec: {
    role: 'PodliftNodeRole-demo',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
  },
};
const NODE_POOL = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'general' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    },
    limits: { cpu: '100' },
  },
};

describe('props', () => {
  it('rejects a bad cluster name, echoing it', () => {
    expect(() => resolveProps({ clusterName: 'bad name!' })).toThrow(
      'Podlift: props.clusterName "bad name!" must be 1-100 letters',
    );
  });

  it('rejects a bad lease name and rebalance action, echoing them', () => {
    expect(() => resolveProps({ clusterName: 'demo', leaseName: 'Not_A_Label' })).toThrow(
      'props.leaseName "Not_A_Label" must be a DNS label',
    );
    expect(() => resolveProps({ clusterName: 'demo', rebalanceAction: 'drain' as never })).toThrow(
      `props.rebalanceAction "drain" must be 'event' or 'replace'`,
    );
  });

  it('applies the documented defaults', () => {
    expect(resolveProps({ clusterName: 'demo' })).toEqual({
      clusterName: 'demo',
      clusterAccess: { kind: 'eks' },
      rebalanceAction: 'event',
      featureGates: {
        nodeRepair: false,
        spotToSpotConsolidation: false,
        reservedCapacity: true,
        globalConsolidation: false,
        podDeletionCostManagement: false,
        candidateTaint: false,
      },
      leaseNamespace: 'podlift',
      leaseName: 'podlift',
      installManifests: true,
    });
    expect(resolveProps({ clusterName: 'demo', clusterAccess: { kind: 'kops' } }).installManifests).toBe(
      false,
    );
  });

  it('passes the feature gates on, from props or context, and rejects a bad one', () => {
    expect(resolveProps({ clusterName: 'demo', featureGates: { nodeRepair: true } }).featureGates).toEqual({
      nodeRepair: true,
      spotToSpotConsolidation: false,
      reservedCapacity: true,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    });
    expect(
      resolveProps({ clusterName: 'demo', featureGates: { reservedCapacity: false } }).featureGates
        .reservedCapacity,
    ).toBe(false);
    expect(
      resolveProps({ clusterName: 'demo', featureGates: { spotToSpotConsolidation: true } }).featureGates,
    ).toEqual({
      nodeRepair: false,
      spotToSpotConsolidation: true,
      reservedCapacity: true,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    });
    expect(() => resolveProps({ clusterName: 'demo', featureGates: { nodeRepair: 'yes' as never } })).toThrow(
      'props.featureGates.nodeRepair "yes" must be true or false',
    );
    expect(() =>
      resolveProps({ clusterName: 'demo', featureGates: { spotToSpotConsolidation: 1 as never } }),
    ).toThrow('props.featureGates.spotToSpotConsolidation 1 must be true or false');
    const fromContext = (featureGates: string) =>
      podliftPropsFromContext(
        (key) => ({ cluster: 'demo', watcherImageUri: 'example.com/w:1', featureGates })[key],
      );
    expect(fromContext('NodeRepair=true').featureGates).toEqual({
      nodeRepair: true,
      spotToSpotConsolidation: false,
      reservedCapacity: true,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    });
    expect(fromContext('SpotToSpotConsolidation=true,ReservedCapacity=false').featureGates).toEqual({
      nodeRepair: false,
      spotToSpotConsolidation: true,
      reservedCapacity: false,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    });
    expect(fromContext('GlobalConsolidation=true').featureGates?.globalConsolidation).toBe(true);
    expect(fromContext('PodDeletionCostManagement=true').featureGates?.podDeletionCostManagement).toBe(true);
    expect(fromContext('CandidateTaint=true').featureGates?.candidateTaint).toBe(true);
    expect(
      resolveProps({ clusterName: 'demo', featureGates: { globalConsolidation: true } }).featureGates
        .globalConsolidation,
    ).toBe(true);
    expect(() => fromContext('NodeRepair')).toThrow(
      'context featureGates "NodeRepair" must be Name=true|false pairs',
    );
  });

  it('rejects an image URI that is not an image reference', () => {
    expect(() => WatcherImage.fromUri('not an image')).toThrow('"not an image" is not an image reference');
  });
});

describe('context', () => {
  const context = (values: Record<string, unknown>) => (key: string) => values[key];

  it('needs the cluster', () => {
    expect(() => podliftPropsFromContext(context({}))).toThrow('context cluster is missing');
  });

  it('reads kOps mode with its OIDC provider, and refuses half of one', () => {
    const props = podliftPropsFromContext(
      context({
        cluster: 'k',
        clusterAccess: 'kops',
        watcherOidcProviderArn: 'arn:p',
        watcherOidcIssuer: 'https://i',
      }),
    );
    expect(props.clusterAccess).toEqual({
      kind: 'kops',
      watcherOidcProvider: { providerArn: 'arn:p', issuer: 'https://i' },
    });
    expect(() =>
      podliftPropsFromContext(
        context({ cluster: 'k', clusterAccess: 'kops', watcherOidcProviderArn: 'arn:p' }),
      ),
    ).toThrow('give both or neither');
    expect(() => podliftPropsFromContext(context({ cluster: 'k', clusterAccess: 'gke' }))).toThrow(
      'context clusterAccess "gke" must be eks or kops',
    );
  });

  it('reads installManifests as true or false, and nothing else', () => {
    expect(
      podliftPropsFromContext(context({ cluster: 'k', installManifests: 'false' })).installManifests,
    ).toBe(false);
    expect(
      podliftPropsFromContext(context({ cluster: 'k', installManifests: 'true' })).installManifests,
    ).toBe(true);
    expect(podliftPropsFromContext(context({ cluster: 'k' }))).not.toHaveProperty('installManifests');
    expect(() => podliftPropsFromContext(context({ cluster: 'k', installManifests: 'no' }))).toThrow(
      'context installManifests "no" must be true or false',
    );
  });

  it('rejects a retention CloudWatch does not offer, echoing it', () => {
    expect(() => podliftPropsFromContext(context({ cluster: 'k', logRetentionDays: '31' }))).toThrow(
      'context logRetentionDays "31" must be one of',
    );
  });

  it("imports an existing node role (Karpenter's, when migrating) and leaves its access entry alone", () => {
    expect(() => podliftPropsFromContext(context({ cluster: 'k', nodeRoleArn: 'my-role' }))).toThrow(
      'context nodeRoleArn "my-role" is not an IAM role ARN',
    );
    const app = testApp();
    const stack = new PodliftStack(app, 'Podlift-k', {
      podlift: (scope) =>
        podliftPropsFromContext(
          context({
            cluster: 'k',
            nodeRoleArn: 'arn:aws:iam::123456789012:role/KarpenterNodeRole-k',
            watcherImageUri: 'example.com/podlift/watcher:1',
          }),
          scope,
        ),
    });
    const template = Template.fromStack(stack);
    // Functions, termination, watcher; the installer's and its Provider framework's four.
    template.resourceCountIs('AWS::IAM::Role', 8);
    // The launching functions', termination's and the installer's: none for the node role.
    template.resourceCountIs('AWS::EKS::AccessEntry', 3);
    template.resourcePropertiesCountIs('AWS::EKS::AccessEntry', { Type: 'EC2_LINUX' }, 0);
    template.hasResourceProperties('AWS::EKS::AccessEntry', { Type: 'STANDARD' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AllowPassingInstanceRole',
            Resource: 'arn:aws:iam::123456789012:role/KarpenterNodeRole-k',
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::IAM::InstanceProfile', { Roles: ['KarpenterNodeRole-k'] });
  });

  it('makes the functions use kOps access in the environment', () => {
    const { template } = synthStack({ clusterAccess: { kind: 'kops' } });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.CLUSTER_ACCESS).toBe('kops');
    }
  });
});

describe('NodePool and EC2NodeClass parameters', () => {
  it('stores typed manifests and YAML files under /podlift/<cluster>/nodepools|nodeclasses/', () => {
    const file = join(dir, 'pools.yaml');
    writeFileSync(
      file,
      `---\n${JSON.stringify({ ...NODE_POOL, metadata: { name: 'spot' } })}\n---\n# empty documents are skipped\n`,
    );
    const { template } = synthStack({ nodePools: { manifests: [NODE_CLASS, NODE_POOL], files: [file] } });
    template.resourceCountIs('AWS::SSM::Parameter', 3);
    const names = Object.values(template.findResources('AWS::SSM::Parameter'))
      .map((p) => p.Properties.Name)
      .sort();
    expect(names).toEqual([
      '/podlift/demo/nodeclasses/default',
      '/podlift/demo/nodepools/general',
      '/podlift/demo/nodepools/spot',
    ]);
    template.hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/podlift/demo/nodepools/general',
      Type: 'String',
      Tier: 'Standard',
      Value: JSON.stringify(NODE_POOL),
    });
  });

  it('fails synth on a bad NodePool, naming the source, the object, the field and the value', () => {
    const bad = { ...NODE_POOL, spec: { ...NODE_POOL.spec, limits: { cpu: 'lots' } } };
    expect(() => synthStack({ nodePools: { manifests: [bad] } })).toThrow(
      /props\.nodePools\.manifests\[0\], NodePool\/general: spec\.limits\.cpu: .*\(got "lots"\)/,
    );
  });

  it('names the file and document of a bad EC2NodeClass in YAML', () => {
    const file = join(dir, 'bad-class.yaml');
    writeFileSync(
      file,
      `kind: NodePool\nmetadata: {name: ok}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: broken\nspec:\n  role: r\n  amiSelectorTerms: [{alias: windows@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n`,
    );
    expect(() => nodePoolParameters('demo', { files: [file] })).toThrow(`${file}, document 0, NodePool/ok`);
    writeFileSync(
      file,
      `apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: broken\nspec:\n  role: r\n  amiSelectorTerms: [{alias: windows@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n`,
    );
    expect(() => nodePoolParameters('demo', { files: [file] })).toThrow(
      new RegExp(`${file}, document 0, EC2NodeClass/broken: spec\\.amiSelectorTerms.*windows@latest`),
    );
  });

  it('refuses other kinds and a name defined twice', () => {
    expect(() =>
      nodePoolParameters('demo', { manifests: [{ kind: 'Deployment', metadata: { name: 'x' } }] }),
    ).toThrow('kind: must be NodePool or EC2NodeClass (got "Deployment")');
    expect(() => nodePoolParameters('demo', { manifests: [NODE_POOL, NODE_POOL] })).toThrow(
      'NodePool/general: metadata.name: is defined twice (first in props.nodePools.manifests[0])',
    );
  });
});
