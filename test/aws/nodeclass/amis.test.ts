import type { DescribeImagesCommandInput } from '@aws-sdk/client-ec2';
import type { GetParametersCommandInput } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import type { EC2NodeClassStatus } from '../../../shared/core/model/ec2nodeclass-status';
import type { ImageSeed } from '../../../sim/fakes/aws/ec2';
import { AMAZON, al2023Path, amiParameter, nodeClassWorld } from '../../../sim/world/aws/node-class-world';
import { K8S } from '../../../sim/world/aws/region';
import { nodeClass } from '../../../sim/world/builders';

const ARCH = 'kubernetes.io/arch';
const GPU = 'karpenter.k8s.aws/instance-gpu-count';
const ACCEL = 'karpenter.k8s.aws/instance-accelerator-count';
const STANDARD = [
  { key: ACCEL, operator: 'DoesNotExist' },
  { key: GPU, operator: 'DoesNotExist' },
];

function image(id: string, name: string, extra: Partial<ImageSeed> = {}): ImageSeed {
  return { id, name, creationDate: '2025-11-01T00:00:00Z', ...AMAZON, ...extra };
}

const amisReady = (status: EC2NodeClassStatus) => status.conditions.find((c) => c.type === 'AMIsReady');

/** id → sorted requirement keys/operators/values, for compact assertions. */
function byId(status: EC2NodeClassStatus) {
  return status.amis.map((a) => ({
    id: a.id,
    requirements: [...a.requirements].sort((x, y) => (x.key < y.key ? -1 : 1)),
  }));
}

const sortReqs = <T extends { key: string }>(reqs: T[]) => [...reqs].sort((x, y) => (x.key < y.key ? -1 : 1));

describe('EC2NodeClassResolver AMIs from aliases', () => {
  const al2023Images = [
    image('ami-000000000000000a1', 'al2023-x86-standard', { architecture: 'x86_64' }),
    image('ami-000000000000000a2', 'al2023-x86-nvidia', { architecture: 'x86_64' }),
    image('ami-000000000000000a3', 'al2023-x86-neuron', { architecture: 'x86_64' }),
    image('ami-000000000000000a4', 'al2023-arm-standard', { architecture: 'arm64' }),
    image('ami-000000000000000a5', 'al2023-arm-nvidia', { architecture: 'arm64' }),
  ];
  const al2023Parameters = [
    amiParameter(al2023Path('x86_64', 'standard'), 'ami-000000000000000a1'),
    amiParameter(al2023Path('x86_64', 'nvidia'), 'ami-000000000000000a2'),
    amiParameter(al2023Path('x86_64', 'neuron'), 'ami-000000000000000a3'),
    amiParameter(al2023Path('arm64', 'standard'), 'ami-000000000000000a4'),
    amiParameter(al2023Path('arm64', 'nvidia'), 'ami-000000000000000a5'),
  ];

  it('resolves al2023@latest through the recommended parameters of every arch and variant, in one call', async () => {
    const { resolver, ssmFake } = nodeClassWorld({
      ec2: { images: al2023Images },
      parameters: al2023Parameters,
    });
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@latest' }] }));
    expect(byId(status).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([
      {
        id: 'ami-000000000000000a1',
        requirements: sortReqs([...STANDARD, { key: ARCH, operator: 'In', values: ['amd64'] }]),
      },
      {
        id: 'ami-000000000000000a2',
        requirements: sortReqs([
          { key: GPU, operator: 'Exists' },
          { key: ARCH, operator: 'In', values: ['amd64'] },
        ]),
      },
      {
        id: 'ami-000000000000000a3',
        requirements: sortReqs([
          { key: ACCEL, operator: 'Exists' },
          { key: ARCH, operator: 'In', values: ['amd64'] },
        ]),
      },
      {
        id: 'ami-000000000000000a4',
        requirements: sortReqs([...STANDARD, { key: ARCH, operator: 'In', values: ['arm64'] }]),
      },
      {
        id: 'ami-000000000000000a5',
        requirements: sortReqs([
          { key: GPU, operator: 'Exists' },
          { key: ARCH, operator: 'In', values: ['arm64'] },
        ]),
      },
    ]);
    expect(ssmFake.callsTo('GetParameters')).toEqual([
      {
        Names: [
          al2023Path('x86_64', 'standard'),
          al2023Path('x86_64', 'nvidia'),
          al2023Path('x86_64', 'neuron'),
          al2023Path('arm64', 'standard'),
          al2023Path('arm64', 'nvidia'),
        ],
      },
    ]);
    expect(amisReady(status)).toMatchObject({ status: 'True', reason: 'AMIsReady' });
  });

  it('skips variants whose parameter does not exist', async () => {
    const { resolver } = nodeClassWorld({
      ec2: { images: al2023Images },
      parameters: [al2023Parameters[0]!, al2023Parameters[3]!],
    });
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@latest' }] }));
    expect(status.amis.map((a) => a.id).sort()).toEqual(['ami-000000000000000a1', 'ami-000000000000000a4']);
    expect(amisReady(status)).toMatchObject({ status: 'True' });
  });

  it('reads the parameters of the pinned release for al2023@vYYYYMMDD', async () => {
    const pinned = `/aws/service/eks/optimized-ami/${K8S}/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-${K8S}-v20250101/image_id`;
    const { resolver, ssmFake } = nodeClassWorld({
      ec2: { images: [...al2023Images, image('ami-000000000000000b1', 'al2023-x86-standard-v20250101')] },
      parameters: [...al2023Parameters, amiParameter(pinned, 'ami-000000000000000b1')],
    });
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20250101' }] }));
    expect(status.amis.map((a) => a.id)).toEqual(['ami-000000000000000b1']);
    const names = (ssmFake.callsTo('GetParameters')[0] as GetParametersCommandInput).Names ?? [];
    expect(names).toContain(pinned);
    expect(names.some((n) => n.includes('/recommended/'))).toBe(false);
  });

  it('resolves bottlerocket@v1.20.0: the standard x86_64 AMI also serves Neuron, nvidia AMIs serve GPUs', async () => {
    const path = (flavour: string, arch: string) =>
      `/aws/service/bottlerocket/aws-k8s-${K8S}${flavour}/${arch}/1.20.0/image_id`;
    const { resolver } = nodeClassWorld({
      ec2: {
        images: [
          image('ami-000000000000000c1', 'bottlerocket-x86'),
          image('ami-000000000000000c2', 'bottlerocket-arm', { architecture: 'arm64' }),
          image('ami-000000000000000c3', 'bottlerocket-nvidia-x86'),
        ],
      },
      parameters: [
        amiParameter(path('', 'x86_64'), 'ami-000000000000000c1'),
        amiParameter(path('', 'arm64'), 'ami-000000000000000c2'),
        amiParameter(path('-nvidia', 'x86_64'), 'ami-000000000000000c3'),
      ],
    });
    const status = await resolver.resolve(
      nodeClass({ amiSelectorTerms: [{ alias: 'bottlerocket@v1.20.0' }] }),
    );
    const x86 = status.amis
      .filter((a) => a.id === 'ami-000000000000000c1')
      .map((a) => sortReqs([...a.requirements]));
    expect(x86).toHaveLength(2);
    expect(x86).toContainEqual(sortReqs([...STANDARD, { key: ARCH, operator: 'In', values: ['amd64'] }]));
    expect(x86).toContainEqual(
      sortReqs([
        { key: ACCEL, operator: 'Exists' },
        { key: ARCH, operator: 'In', values: ['amd64'] },
      ]),
    );
    expect(status.amis.find((a) => a.id === 'ami-000000000000000c3')?.requirements).toContainEqual({
      key: GPU,
      operator: 'Exists',
    });
    expect(status.amis.find((a) => a.id === 'ami-000000000000000c2')?.requirements).toContainEqual({
      key: ARCH,
      operator: 'In',
      values: ['arm64'],
    });
  });

  it('resolves al2@latest: the GPU AMI serves both NVIDIA and Neuron instances', async () => {
    const path = (suffix: string) =>
      `/aws/service/eks/optimized-ami/${K8S}/amazon-linux-2${suffix}/recommended/image_id`;
    const { resolver } = nodeClassWorld({
      ec2: { images: [image('ami-000000000000000d1', 'al2'), image('ami-000000000000000d2', 'al2-gpu')] },
      parameters: [
        amiParameter(path(''), 'ami-000000000000000d1'),
        amiParameter(path('-gpu'), 'ami-000000000000000d2'),
      ],
    });
    const status = await resolver.resolve(
      nodeClass({ amiSelectorTerms: [{ alias: 'al2@latest' }], amiFamily: 'AL2' }),
    );
    const gpu = status.amis.filter((a) => a.id === 'ami-000000000000000d2').flatMap((a) => a.requirements);
    expect(gpu).toContainEqual({ key: GPU, operator: 'Exists' });
    expect(gpu).toContainEqual({ key: ACCEL, operator: 'Exists' });
    expect(amisReady(status)).toMatchObject({ status: 'True' });
  });

  it('resolves windows2022@latest to a Windows AMI with os and build requirements', async () => {
    const { resolver } = nodeClassWorld({
      ec2: {
        images: [image('ami-000000000000000e1', 'Windows_Server-2022-English-Core-EKS_Optimized-1.31')],
      },
      parameters: [
        amiParameter(
          `/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-${K8S}/image_id`,
          'ami-000000000000000e1',
        ),
      ],
    });
    const status = await resolver.resolve(
      nodeClass({ amiSelectorTerms: [{ alias: 'windows2022@latest' }], amiFamily: 'Windows2022' }),
    );
    expect(byId(status)).toEqual([
      {
        id: 'ami-000000000000000e1',
        requirements: [
          { key: ARCH, operator: 'In', values: ['amd64'] },
          { key: 'kubernetes.io/os', operator: 'In', values: ['windows'] },
          { key: 'node.kubernetes.io/windows-build', operator: 'In', values: ['10.0.20348'] },
        ],
      },
    ]);
  });

  it('reports AMINotFound naming the alias when none of its parameters exists', async () => {
    const { resolver, ec2Fake } = nodeClassWorld({ parameters: al2023Parameters });
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20990101' }] }));
    expect(amisReady(status)).toMatchObject({ status: 'False', reason: 'AMINotFound' });
    expect(amisReady(status)?.message).toContain('failed to discover any AMIs for alias "al2023@v20990101"');
    expect(ec2Fake.callsTo('DescribeImages')).toEqual([]);
  });

  it('reports an unknown alias family without calling SSM', async () => {
    const { resolver, ssmFake } = nodeClassWorld();
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ alias: 'ubuntu@latest' }] }));
    expect(amisReady(status)).toMatchObject({ status: 'False', reason: 'AMINotFound' });
    expect(amisReady(status)?.message).toContain('family "ubuntu" is not supported');
    expect(ssmFake.calls).toEqual([]);
  });

  it('refuses al2 aliases on Kubernetes 1.33 and later, as Karpenter does', async () => {
    const { resolver } = nodeClassWorld({
      resolver: { cluster: { name: 'demo', kubernetesVersion: '1.33' } },
    });
    const status = await resolver.resolve(
      nodeClass({ amiSelectorTerms: [{ alias: 'al2@latest' }], amiFamily: 'AL2' }),
    );
    expect(amisReady(status)?.message).toContain('AL2 aliases are no longer supported on EKS 1.33+');
  });
});

describe('EC2NodeClassResolver AMIs from selectors', () => {
  it('keeps the newest non-deprecated AMI per architecture, newest first, deprecated ones last', async () => {
    const world = nodeClassWorld({
      ec2: {
        images: [
          image('ami-00000000000000101', 'x86-old', {
            creationDate: '2025-01-01T00:00:00Z',
            tags: { team: 'a' },
          }),
          image('ami-00000000000000102', 'x86-new-deprecated', {
            creationDate: '2025-06-01T00:00:00Z',
            deprecationTime: '2025-07-01T00:00:00Z',
            tags: { team: 'a' },
          }),
          image('ami-00000000000000103', 'arm-deprecated', {
            architecture: 'arm64',
            creationDate: '2025-09-01T00:00:00Z',
            deprecationTime: '2025-10-01T00:00:00Z',
            tags: { team: 'a' },
          }),
          image('ami-00000000000000104', 'arm-older-deprecated', {
            architecture: 'arm64',
            creationDate: '2025-08-01T00:00:00Z',
            deprecationTime: '2025-10-01T00:00:00Z',
            tags: { team: 'a' },
          }),
          image('ami-00000000000000105', 'mac', { architecture: 'x86_64_mac', tags: { team: 'a' } }),
        ],
      },
    });
    const status = await world.resolver.resolve(nodeClass({ amiSelectorTerms: [{ tags: { team: 'a' } }] }));
    expect(status.amis.map((a) => [a.id, a.deprecated])).toEqual([
      ['ami-00000000000000101', false],
      ['ami-00000000000000103', true],
    ]);
    const call = world.ec2Fake.callsTo('DescribeImages')[0] as DescribeImagesCommandInput;
    expect(call).toMatchObject({
      IncludeDeprecated: true,
      Filters: [
        { Name: 'tag:team', Values: ['a'] },
        { Name: 'state', Values: ['available'] },
      ],
    });
    expect(call.Owners).toBeUndefined();
  });

  it('orders AMIs of different architectures newest first', async () => {
    const { resolver } = nodeClassWorld({
      ec2: {
        images: [
          image('ami-00000000000000201', 'x86', { creationDate: '2025-01-01T00:00:00Z' }),
          image('ami-00000000000000202', 'arm', {
            architecture: 'arm64',
            creationDate: '2025-03-01T00:00:00Z',
          }),
        ],
      },
    });
    const status = await resolver.resolve(
      nodeClass({ amiSelectorTerms: [{ id: 'ami-00000000000000201' }, { id: 'ami-00000000000000202' }] }),
    );
    expect(status.amis.map((a) => [a.id, a.name, a.creationDate])).toEqual([
      ['ami-00000000000000202', 'arm', '2025-03-01T00:00:00Z'],
      ['ami-00000000000000201', 'x86', '2025-01-01T00:00:00Z'],
    ]);
  });

  it('limits name terms to owners self and amazon unless an owner is given', async () => {
    const { resolver, ec2Fake, newResolver } = nodeClassWorld({
      ec2: {
        images: [
          image('ami-00000000000000301', 'eks-node-1.31', { creationDate: '2025-01-01T00:00:00Z' }),
          image('ami-00000000000000302', 'eks-node-1.31', {
            creationDate: '2025-05-01T00:00:00Z',
            ownerAlias: undefined,
            ownerId: '999999999999',
            public: true,
          }),
        ],
      },
    });
    const defaulted = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ name: 'eks-node-*' }] }));
    expect(defaulted.amis.map((a) => a.id)).toEqual(['ami-00000000000000301']);
    expect(ec2Fake.callsTo('DescribeImages')[0]).toMatchObject({
      Owners: ['self', 'amazon'],
      Filters: [
        { Name: 'name', Values: ['eks-node-*'] },
        { Name: 'state', Values: ['available'] },
      ],
    });
    const owned = await newResolver().resolve(
      nodeClass({ amiSelectorTerms: [{ name: 'eks-node-*', owner: '999999999999' }] }),
    );
    expect(owned.amis.map((a) => a.id)).toEqual(['ami-00000000000000302']);
  });

  it('resolves ssmParameter terms through SSM, skipping missing parameters and non-AMI values', async () => {
    const { resolver, ec2Fake } = nodeClassWorld({
      ec2: { images: [image('ami-00000000000000401', 'golden')] },
      parameters: [
        { name: '/platform/golden-ami', value: 'ami-00000000000000401' },
        { name: '/platform/not-an-ami', value: 'resolve:ssm:/elsewhere' },
      ],
    });
    const status = await resolver.resolve(
      nodeClass({
        amiSelectorTerms: [
          { ssmParameter: '/platform/golden-ami' },
          { ssmParameter: '/platform/missing' },
          { ssmParameter: '/platform/not-an-ami' },
        ],
      }),
    );
    expect(status.amis.map((a) => a.id)).toEqual(['ami-00000000000000401']);
    expect(ec2Fake.callsTo('DescribeImages')).toMatchObject([
      {
        Filters: [
          { Name: 'image-id', Values: ['ami-00000000000000401'] },
          { Name: 'state', Values: ['available'] },
        ],
      },
    ]);
  });

  it('skips an AMI that is not available yet: a newer pending image never wins over the available one', async () => {
    const { resolver, ec2Fake, clock, newResolver } = nodeClassWorld({
      ec2: {
        images: [
          image('ami-00000000000000501', 'golden-v1', { creationDate: '2025-01-01T00:00:00Z' }),
          image('ami-00000000000000502', 'golden-v2', {
            creationDate: '2025-02-01T00:00:00Z',
            state: 'pending',
          }),
        ],
      },
    });
    const terms = [{ name: 'golden-*' }];
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: terms }));
    expect(status.amis.map((a) => a.id)).toEqual(['ami-00000000000000501']);

    // Once EC2 finishes registering it, the newer image is the one to use.
    ec2Fake.setImageState('ami-00000000000000502', 'available');
    clock.advance(1_000);
    const later = await newResolver().resolve(nodeClass({ amiSelectorTerms: terms }));
    expect(later.amis.map((a) => a.id)).toEqual(['ami-00000000000000502']);
  });

  it('reports AMINotFound with Karpenter message when no AMI matches', async () => {
    const { resolver } = nodeClassWorld();
    const status = await resolver.resolve(nodeClass({ amiSelectorTerms: [{ tags: { team: 'nobody' } }] }));
    expect(status.amis).toEqual([]);
    expect(amisReady(status)).toMatchObject({
      status: 'False',
      reason: 'AMINotFound',
      message: 'AMISelector did not match any AMIs',
    });
  });
});
