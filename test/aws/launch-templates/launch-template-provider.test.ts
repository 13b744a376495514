import type { RequestLaunchTemplateData } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseMimeArchive } from '../../../shared/aws/userdata/mime-archive';
import { isCloudError, isNotFoundError, isValidationError } from '../../../shared/core/model/errors';
import {
  amis,
  launchRequest,
  launchTemplateWorld,
  resolved,
} from '../../../sim/world/aws/launch-template-world';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { decode } from '../userdata/fixtures';

/** The kubelet config and flags in a template's generated NodeConfig. */
function kubeletOf(data: RequestLaunchTemplateData | undefined) {
  const archive = parseMimeArchive(decode(data?.UserData));
  if (!archive.ok) throw new Error(archive.reason);
  return parseYaml(archive.parts[archive.parts.length - 1].content).spec.kubelet;
}

describe('Ec2LaunchTemplateProvider.ensure', () => {
  it('creates a template named podlift/<cluster>/<hash> with the image, user data, profile, groups, IMDS and root volume', async () => {
    const { provider, fake } = launchTemplateWorld();
    const [ref] = await provider.ensure(launchRequest(), cluster);
    expect(ref.launchTemplateName).toMatch(/^podlift\/demo\/[0-9a-f]{16}$/);
    expect(ref.launchTemplateId).toMatch(/^lt-/);
    expect(ref.imageId).toBe(amis.standard.id);
    const data = fake.launchTemplateData(ref.launchTemplateName);
    expect(data).toMatchObject({
      ImageId: amis.standard.id,
      IamInstanceProfile: { Name: 'demo_1234567890' },
      SecurityGroupIds: ['sg-0000000000000000a', 'sg-0000000000000000b'],
      MetadataOptions: {
        HttpEndpoint: 'enabled',
        HttpProtocolIpv6: 'disabled',
        HttpPutResponseHopLimit: 1,
        HttpTokens: 'required',
        InstanceMetadataTags: 'disabled',
      },
      BlockDeviceMappings: [
        { DeviceName: '/dev/xvda', Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true } },
      ],
      Monitoring: { Enabled: false },
    });
    expect(data?.NetworkInterfaces).toBeUndefined();
    expect(data?.TagSpecifications?.map((t) => t.ResourceType)).toEqual([
      'network-interface',
      'spot-instances-request',
    ]);
    expect(kubeletOf(data).config.maxPods).toBe(29);
    expect(kubeletOf(data).flags[0]).toContain('karpenter.sh/capacity-type=spot');
  });

  it('tags the template for the cluster, NodePool and EC2NodeClass, over the EC2NodeClass tags', async () => {
    const { provider, fake } = launchTemplateWorld();
    const request = launchRequest({
      nodeClass: nodeClass({ tags: { team: 'ml', 'karpenter.k8s.aws/cluster': 'spoofed' } }),
      nodePool: 'gpu',
    });
    const [ref] = await provider.ensure(request, cluster);
    const created = fake.callsTo('CreateLaunchTemplate')[0] as {
      TagSpecifications: { ResourceType: string; Tags: { Key: string; Value: string }[] }[];
    };
    expect(created.TagSpecifications).toHaveLength(1);
    expect(created.TagSpecifications[0].ResourceType).toBe('launch-template');
    expect(Object.fromEntries(created.TagSpecifications[0].Tags.map((t) => [t.Key, t.Value]))).toEqual({
      team: 'ml',
      'kubernetes.io/cluster/demo': 'owned',
      'eks:eks-cluster-name': 'demo',
      'karpenter.sh/nodepool': 'gpu',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'karpenter.k8s.aws/cluster': 'demo',
    });
    expect(ref.launchTemplateName.startsWith('podlift/demo/')).toBe(true);
  });

  it('creates a template once: a second ensure asks EC2 nothing, and after the cache expires only describes', async () => {
    const { provider, fake, clock } = launchTemplateWorld({ cacheTtlMs: 60_000 });
    const first = await provider.ensure(launchRequest(), cluster);
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(1);
    expect(fake.callsTo('DescribeLaunchTemplates')).toHaveLength(1);

    const second = await provider.ensure(launchRequest(), cluster);
    expect(second).toEqual(first);
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(1);
    expect(fake.callsTo('DescribeLaunchTemplates')).toHaveLength(1);

    clock.advance(60_000);
    expect(await provider.ensure(launchRequest(), cluster)).toEqual(first);
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(1);
    expect(fake.callsTo('DescribeLaunchTemplates')).toHaveLength(2);
  });

  it('finds the template another process created instead of creating it again', async () => {
    const { provider, anotherProvider, fake } = launchTemplateWorld();
    const [mine] = await provider.ensure(launchRequest(), cluster);
    const [theirs] = await anotherProvider().ensure(launchRequest(), cluster);
    expect(theirs).toEqual(mine);
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(1);
  });

  it('treats AlreadyExists from a creation race as success and returns the winner', async () => {
    const { provider, anotherProvider, fake } = launchTemplateWorld();
    const [winner] = await anotherProvider().ensure(launchRequest(), cluster);
    // Our describe ran before the winner's create landed: EC2 answered NotFound.
    fake.failNext('DescribeLaunchTemplates', 'InvalidLaunchTemplateName.NotFoundException');
    const [ref] = await provider.ensure(launchRequest(), cluster);
    expect(ref).toEqual(winner);
    const creates = fake.calls.filter((c) => c.operation === 'CreateLaunchTemplate');
    expect(creates.map((c) => c.error?.name)).toEqual([
      undefined,
      'InvalidLaunchTemplateName.AlreadyExistsException',
    ]);
  });

  it('makes one EC2 round for concurrent ensures of the same template', async () => {
    const { provider, fake } = launchTemplateWorld();
    const [a, b] = await Promise.all([
      provider.ensure(launchRequest(), cluster),
      provider.ensure(launchRequest(), cluster),
    ]);
    expect(a).toEqual(b);
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(1);
    expect(fake.callsTo('DescribeLaunchTemplates')).toHaveLength(1);
  });

  it('recreates a template deleted behind its back once invalidated', async () => {
    const { provider, fake } = launchTemplateWorld();
    const [ref] = await provider.ensure(launchRequest(), cluster);
    fake.deleteLaunchTemplate({ LaunchTemplateName: ref.launchTemplateName });
    provider.invalidate(ref.launchTemplateName);
    const [again] = await provider.ensure(launchRequest(), cluster);
    expect(again.launchTemplateName).toBe(ref.launchTemplateName);
    expect(again.launchTemplateId).not.toBe(ref.launchTemplateId);
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(2);
  });

  it('groups options by AMI: GPU types get the NVIDIA image, arm64 types the arm64 image, each with its types', async () => {
    const { provider, fake } = launchTemplateWorld();
    const refs = await provider.ensure(
      launchRequest({ types: ['m5.large', 'g5.xlarge', 'm6g.large', 'c5.large', 'g4dn.xlarge'] }),
      cluster,
    );
    expect(refs.map((r) => [r.imageId, r.requirements.at(-1)])).toEqual([
      [
        amis.standard.id,
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'c5.large'] },
      ],
      [amis.nvidia.id, { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['g5.xlarge'] }],
      [amis.arm.id, { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m6g.large'] }],
      [amis.nvidia.id, { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['g4dn.xlarge'] }],
    ]);
    expect(refs[1].requirements.slice(0, -1)).toEqual(amis.nvidia.requirements);
    for (const ref of refs)
      expect(fake.launchTemplateData(ref.launchTemplateName)?.ImageId).toBe(ref.imageId);
    // g5.xlarge and g4dn.xlarge share the image but not max pods (58 and 29), so not the user data.
    expect(kubeletOf(fake.launchTemplateData(refs[1].launchTemplateName)).config.maxPods).toBe(58);
    expect(kubeletOf(fake.launchTemplateData(refs[3].launchTemplateName)).config.maxPods).toBe(29);
  });

  it('shares one template between types of one AMI when the EC2NodeClass fixes maxPods', async () => {
    const { provider } = launchTemplateWorld();
    const refs = await provider.ensure(
      launchRequest({
        types: ['m5.large', 'm5.2xlarge'],
        nodeClass: nodeClass({ kubelet: { maxPods: 110 } }),
      }),
      cluster,
    );
    expect(refs).toHaveLength(1);
    expect(refs[0].requirements.at(-1)?.values).toEqual(['m5.large', 'm5.2xlarge']);
  });

  it('shares one template between max-pods groups when the user data does not depend on max pods (Custom)', async () => {
    const { provider } = launchTemplateWorld();
    const refs = await provider.ensure(
      launchRequest({
        types: ['m5.large', 'm5.xlarge'],
        nodeClass: nodeClass({ amiFamily: 'Custom', userData: 'nodeup' }),
      }),
      cluster,
    );
    expect(refs.map((r) => r.requirements.at(-1)?.values)).toEqual([['m5.large', 'm5.xlarge']]);
  });

  it('serves only the options of the capacity type the launch buys, and labels the node with it', async () => {
    const { provider, fake } = launchTemplateWorld();
    const refs = await provider.ensure(
      launchRequest({
        types: ['m5.large', 'c5.large'],
        capacityTypes: { 'm5.large': 'on-demand', 'c5.large': 'spot' },
      }),
      cluster,
    );
    expect(refs.map((r) => r.requirements.at(-1)?.values)).toEqual([['c5.large']]);
    expect(kubeletOf(fake.launchTemplateData(refs[0].launchTemplateName)).flags[0]).toContain(
      'karpenter.sh/capacity-type=spot',
    );
  });

  it('uses an AMI only for the types its requirements admit, and fails when none admits any option', async () => {
    const { provider } = launchTemplateWorld();
    const onlyArm = resolved({ amis: [amis.arm] });
    const refs = await provider.ensure(
      launchRequest({ types: ['m5.large', 'm6g.large'], resolved: onlyArm }),
      cluster,
    );
    expect(refs.map((r) => r.requirements.at(-1)?.values)).toEqual([['m6g.large']]);
    const error = await provider
      .ensure(launchRequest({ types: ['m5.large', 'g5.xlarge'], resolved: onlyArm }), cluster)
      .catch((e: unknown) => e);
    expect(isNotFoundError(error)).toBe(true);
    expect(String(error)).toContain(
      `no AMI of the EC2NodeClass (${amis.arm.id}) serves any of the spot options (m5.large, g5.xlarge)`,
    );
  });

  it('fails with NotFoundError when the EC2NodeClass resolved no AMI, security group or instance profile', async () => {
    const { provider, fake } = launchTemplateWorld();
    for (const status of [
      resolved({ amis: [] }),
      resolved({ securityGroups: [] }),
      resolved({ instanceProfile: undefined }),
    ]) {
      const error = await provider
        .ensure(launchRequest({ resolved: status }), cluster)
        .catch((e: unknown) => e);
      expect(isNotFoundError(error)).toBe(true);
      expect(String(error)).toMatch(/EC2NodeClass (default|\S+)/);
    }
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(0);
  });

  it("reports the EC2NodeClass's bad userData as a ValidationError before calling EC2", async () => {
    const { provider, fake } = launchTemplateWorld();
    const error = await provider
      .ensure(
        launchRequest({
          nodeClass: nodeClass({ userData: 'MIME-Version: 1.0\nContent-Type: text/plain\n\nx' }),
        }),
        cluster,
      )
      .catch((e: unknown) => e);
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toContain('EC2NodeClass/default: spec.userData');
    expect(fake.calls).toHaveLength(0);
  });

  it('retries throttled describes and creates with backoff on the injected clock', async () => {
    const { provider, fake, sleeps } = launchTemplateWorld();
    fake.throttle('DescribeLaunchTemplates', 2);
    fake.throttle('CreateLaunchTemplate', 2);
    const [ref] = await provider.ensure(launchRequest(), cluster);
    expect(ref.launchTemplateId).toMatch(/^lt-/);
    expect(fake.calls.map((c) => [c.operation, c.error?.name])).toEqual([
      ['DescribeLaunchTemplates', 'RequestLimitExceeded'],
      ['DescribeLaunchTemplates', 'RequestLimitExceeded'],
      ['DescribeLaunchTemplates', 'InvalidLaunchTemplateName.NotFoundException'],
      ['CreateLaunchTemplate', 'RequestLimitExceeded'],
      ['CreateLaunchTemplate', 'RequestLimitExceeded'],
      ['CreateLaunchTemplate', undefined],
    ]);
    expect(sleeps).toEqual([50, 100, 50, 100]);
  });

  it('wraps EC2 failures in a CloudError naming the template and NodeClaim, retryable when throttling outlasts the retries', async () => {
    const { provider, fake } = launchTemplateWorld({ maxAttempts: 2 });
    fake.throttle('CreateLaunchTemplate', 2);
    const request = launchRequest({ nodeClaim: nodeClaim({ name: 'default-x7k2p' }) });
    const throttled = await provider.ensure(request, cluster).catch((e: unknown) => e);
    expect(isCloudError(throttled) && throttled.retryable).toBe(true);
    expect(String(throttled)).toMatch(
      /creating launch template podlift\/demo\/[0-9a-f]{16} for NodeClaim default-x7k2p: RequestLimitExceeded: .*gave up after 2 attempts/,
    );

    fake.failNext('CreateLaunchTemplate', 'InvalidParameterValue', { message: 'bad hop limit' });
    const invalid = await provider.ensure(launchRequest(), cluster).catch((e: unknown) => e);
    expect(isCloudError(invalid) && !invalid.retryable && invalid.code === 'InvalidParameterValue').toBe(
      true,
    );
    expect(fake.callsTo('CreateLaunchTemplate')).toHaveLength(3);

    expect((await provider.ensure(launchRequest(), cluster))[0].launchTemplateId).toMatch(/^lt-/);
  });
});
