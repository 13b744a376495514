import { describe, expect, it } from 'vitest';
import { aliasParameters, parseAlias, UnsupportedAliasError } from '../../../shared/aws/nodeclass/ami-alias';
import { compareAmis } from '../../../shared/aws/nodeclass/ami-selection';
import {
  fnv1a64,
  instanceProfileName,
  legacyInstanceProfileName,
} from '../../../shared/aws/nodeclass/instance-profile-name';
import { subnetFilterSets, tagFilters } from '../../../shared/aws/nodeclass/selector-filters';
import type { ResolvedAmi } from '../../../shared/core/model/ec2nodeclass-status';

describe('fnv1a64', () => {
  it.each([
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ])('hashes %j to the published FNV-1a 64 value', (text, expected) => {
    expect(fnv1a64(text)).toBe(expected);
  });
});

describe('instanceProfileName', () => {
  it('is <cluster>_<FNV-1a of region + node class name + uid + role> in decimal', () => {
    expect(instanceProfileName('demo', 'us-east-1', 'default', 'uid-1', 'NodeRole')).toBe(
      `demo_${fnv1a64('us-east-1defaultuid-1NodeRole').toString(10)}`,
    );
    expect(instanceProfileName('demo', 'us-east-1', 'default', undefined, 'NodeRole')).toBe(
      `demo_${fnv1a64('us-east-1defaultNodeRole').toString(10)}`,
    );
  });

  it('differs per region, node class, uid and role, and fits IAM for a 100-character cluster name', () => {
    const names = new Set([
      instanceProfileName('demo', 'us-east-1', 'default', 'uid-1', 'NodeRole'),
      instanceProfileName('demo', 'us-west-2', 'default', 'uid-1', 'NodeRole'),
      instanceProfileName('demo', 'us-east-1', 'gpu', 'uid-1', 'NodeRole'),
      instanceProfileName('demo', 'us-east-1', 'default', 'uid-2', 'NodeRole'),
      instanceProfileName('demo', 'us-east-1', 'default', 'uid-1', 'OtherRole'),
    ]);
    expect(names.size).toBe(5);
    expect(
      instanceProfileName('c'.repeat(100), 'ap-southeast-2', 'x', 'uid', 'r'.repeat(64)).length,
    ).toBeLessThanOrEqual(128);
  });

  it("keeps Karpenter's legacy name, <cluster>_<FNV-1a of region + node class name>, for garbage collection", () => {
    expect(legacyInstanceProfileName('demo', 'us-east-1', 'default')).toBe(
      `demo_${fnv1a64('us-east-1default').toString(10)}`,
    );
  });
});

describe('selector filters', () => {
  it('sorts tag keys and maps * to tag-key', () => {
    expect(tagFilters({ b: '*', a: 'x' })).toEqual([
      { Name: 'tag:a', Values: ['x'] },
      { Name: 'tag-key', Values: ['b'] },
    ]);
  });

  it('ANDs a subnet term cidr with its tags', () => {
    expect(subnetFilterSets([{ tags: { tier: 'private' }, cidr: '10.0.0.0/20' }])).toEqual([
      [
        { Name: 'tag:tier', Values: ['private'] },
        { Name: 'cidr-block', Values: ['10.0.0.0/20'] },
      ],
    ]);
  });
});

describe('alias parameters', () => {
  it('reads the pinned AL2 release of every flavour', () => {
    expect(aliasParameters(parseAlias('al2@v20240807'), '1.30').map((p) => p.name)).toEqual([
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2/amazon-eks-node-1.30-v20240807/image_id',
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/amazon-eks-arm64-node-1.30-v20240807/image_id',
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/amazon-eks-gpu-node-1.30-v20240807/image_id',
    ]);
  });

  it('reads Bottlerocket latest and nvidia paths', () => {
    expect(aliasParameters(parseAlias('bottlerocket@latest'), '1.31').map((p) => p.name)).toEqual([
      '/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id',
      '/aws/service/bottlerocket/aws-k8s-1.31/arm64/latest/image_id',
      '/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/latest/image_id',
      '/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64/latest/image_id',
    ]);
  });

  it('reads the Windows Server 2019 Core parameter with its build', () => {
    const [parameter] = aliasParameters(parseAlias('windows2019@latest'), '1.31');
    expect(parameter?.name).toBe(
      '/aws/service/ami-windows-latest/Windows_Server-2019-English-Core-EKS_Optimized-1.31/image_id',
    );
    expect(parameter?.requirementSets[0]).toContainEqual({
      key: 'node.kubernetes.io/windows-build',
      operator: 'In',
      values: ['10.0.17763'],
    });
  });

  it('reads the Windows Server 2025 Core parameter with its build, from Kubernetes 1.35 on as Karpenter does', () => {
    const [parameter] = aliasParameters(parseAlias('windows2025@latest'), '1.35');
    expect(parameter?.name).toBe(
      '/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.35/image_id',
    );
    expect(parameter?.requirementSets[0]).toContainEqual({
      key: 'node.kubernetes.io/windows-build',
      operator: 'In',
      values: ['10.0.26100'],
    });
    expect(() => aliasParameters(parseAlias('windows2025@latest'), '1.34')).toThrow(
      'Windows Server 2025 requires EKS version 1.35 or higher (Kubernetes 1.34)',
    );
  });

  it.each([
    ['al2023', 'improperly formatted'],
    ['windows2022@v1', "may only specify version 'latest'"],
    ['centos@latest', 'family "centos" is not supported'],
  ])('rejects %j naming the alias', (alias, message) => {
    expect(() => parseAlias(alias)).toThrow(UnsupportedAliasError);
    expect(() => parseAlias(alias)).toThrow(message);
  });
});

describe('compareAmis', () => {
  const ami = (over: Partial<ResolvedAmi>): ResolvedAmi => ({
    id: 'ami-1',
    name: 'n',
    creationDate: '2025-01-01T00:00:00Z',
    deprecated: false,
    requirements: [],
    ...over,
  });

  it('prefers non-deprecated, then newer, then the name that sorts last', () => {
    expect(
      compareAmis(
        ami({ deprecated: false }),
        ami({ deprecated: true, creationDate: '2026-01-01T00:00:00Z' }),
      ),
    ).toBe(-1);
    expect(compareAmis(ami({ creationDate: '2025-02-01T00:00:00Z' }), ami({}))).toBe(-1);
    expect(compareAmis(ami({ name: 'b' }), ami({ name: 'a' }))).toBe(-1);
    expect(compareAmis(ami({}), ami({}))).toBe(0);
  });
});
