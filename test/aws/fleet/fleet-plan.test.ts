import { describe, expect, it } from 'vitest';
import {
  MAX_FLEET_OVERRIDES,
  MAX_INSTANCE_TYPES,
  planFleet,
  templateServes,
  zonalSubnets,
} from '../../../shared/aws/fleet/fleet-plan';
import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import type { ResolvedSubnet } from '../../../shared/core/model/ec2nodeclass-status';
import { LABEL_ARCH, LABEL_INSTANCE_GPU_COUNT, LABEL_INSTANCE_TYPE } from '../../../shared/core/model/labels';
import { Requirement } from '../../../shared/core/model/requirements';
import type { LaunchTemplateRef } from '../../../shared/core/ports/launch-templates';
import { cheapestOptions, launchInstanceTypes, RESOLVED_SUBNETS } from '../../../sim/world/aws/launch-world';
import { nodeClaim } from '../../../sim/world/builders';

const AMD64: LaunchTemplateRef = {
  launchTemplateName: 'amd64',
  imageId: 'ami-amd64',
  requirements: [
    { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
    { key: LABEL_INSTANCE_GPU_COUNT, operator: 'DoesNotExist' },
  ],
};
const ARM64: LaunchTemplateRef = {
  launchTemplateName: 'arm64',
  imageId: 'ami-arm64',
  requirements: [{ key: LABEL_ARCH, operator: 'In', values: ['arm64'] }],
};
const NVIDIA: LaunchTemplateRef = {
  launchTemplateName: 'nvidia',
  imageId: 'ami-nvidia',
  requirements: [
    { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
    { key: LABEL_INSTANCE_GPU_COUNT, operator: 'Exists' },
  ],
};

function subnet(id: string, zone: string, availableIpAddressCount: number): ResolvedSubnet {
  return { id, zone, availableIpAddressCount };
}

describe('zonalSubnets', () => {
  it('picks the subnet with the most free addresses in each allowed zone', () => {
    const picked = zonalSubnets(
      [
        subnet('subnet-a1', 'us-east-1a', 10),
        subnet('subnet-a2', 'us-east-1a', 300),
        subnet('subnet-a3', 'us-east-1a', 300),
        subnet('subnet-b1', 'us-east-1b', 5),
        subnet('subnet-c1', 'us-east-1c', 999),
      ],
      Requirement.of('topology.kubernetes.io/zone', 'In', ['us-east-1a', 'us-east-1b']),
    );
    expect(Object.fromEntries([...picked].map(([zone, s]) => [zone, s.id]))).toEqual({
      'us-east-1a': 'subnet-a2',
      'us-east-1b': 'subnet-b1',
    });
  });
});

describe('zonalSubnets (continued)', () => {
  const subnets = [
    subnet('subnet-a1', 'us-east-1a', 100),
    subnet('subnet-a2', 'us-east-1a', 80),
    subnet('subnet-b1', 'us-east-1b', 5),
  ];
  const ids = (picked: ReadonlyMap<string, ResolvedSubnet>) =>
    Object.fromEntries([...picked].map(([zone, s]) => [zone, s.id]));

  it('passes over subnets out of addresses, and leaves a zone out when all of its are', () => {
    expect(
      ids(zonalSubnets(subnets, undefined, { unavailable: new Set(['subnet-a1', 'subnet-b1']) })),
    ).toStrictEqual({
      'us-east-1a': 'subnet-a2',
    });
  });

  it('counts the addresses in flight against each subnet', () => {
    expect(ids(zonalSubnets(subnets, undefined, { inflight: new Map([['subnet-a1', 21]]) }))).toStrictEqual({
      'us-east-1a': 'subnet-a2',
      'us-east-1b': 'subnet-b1',
    });
    expect(ids(zonalSubnets(subnets, undefined, { inflight: new Map([['subnet-a1', 20]]) }))).toStrictEqual({
      'us-east-1a': 'subnet-a1',
      'us-east-1b': 'subnet-b1',
    });
  });
});

describe('templateServes', () => {
  it('matches templates to instance types by architecture and GPU requirements', () => {
    const types = launchInstanceTypes();
    const served = (name: string) =>
      [AMD64, ARM64, NVIDIA]
        .filter((t) => templateServes(t, types.get(name)!))
        .map((t) => t.launchTemplateName);
    expect(served('m5.large')).toEqual(['amd64']);
    expect(served('m6g.large')).toEqual(['arm64']);
    expect(served('g4dn.xlarge')).toEqual(['nvidia']);
  });
});

describe('planFleet', () => {
  const types = launchInstanceTypes();
  const base = {
    instanceTypes: types,
    subnets: RESOLVED_SUBNETS,
    launchTemplates: [AMD64, ARM64, NVIDIA],
    unavailable: new Set<string>(),
  };

  it('gives the GPU type the GPU template and keeps the NodeClaim to its zones', () => {
    const plan = planFleet({
      ...base,
      // minValues keeps the GPU type among the options (no exotic-instance filter).
      nodeClaim: nodeClaim({
        zones: ['us-east-1b'],
        requirements: [
          { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['m5.large', 'g4dn.xlarge'], minValues: 2 },
        ],
      }),
      options: cheapestOptions(types, ['m5.large', 'g4dn.xlarge']),
    });
    expect(
      plan.configs.map((c) => [
        c.template.launchTemplateName,
        c.overrides.map((o) => `${o.instanceType} ${o.zone}`),
      ]),
    ).toEqual([
      ['amd64', ['m5.large us-east-1b']],
      ['nvidia', ['g4dn.xlarge us-east-1b']],
    ]);
  });

  it('chooses on-demand when spot is allowed but none of its offerings is available', () => {
    const unavailable = new Set(
      ['us-east-1a', 'us-east-1b', 'us-east-1c'].map((z) => offeringKey('m5.large', z, 'spot')),
    );
    const plan = planFleet({
      ...base,
      unavailable,
      nodeClaim: nodeClaim(),
      options: cheapestOptions(types, ['m5.large']),
    });
    expect(plan.capacityType).toBe('on-demand');
    expect(plan.configs[0]?.overrides.map((o) => o.zone)).toEqual(['us-east-1a', 'us-east-1b']);
  });

  it('chooses on-demand when the only available spot offering is in a zone without a subnet', () => {
    const unavailable = new Set(['us-east-1a', 'us-east-1b'].map((z) => offeringKey('m5.large', z, 'spot')));
    const plan = planFleet({
      ...base,
      unavailable,
      nodeClaim: nodeClaim(),
      options: cheapestOptions(types, ['m5.large']),
    });
    expect(plan.capacityType).toBe('on-demand');
  });

  it('plans nothing for a spot-only NodeClaim without available spot offerings, and says why', () => {
    const unavailable = new Set(['us-east-1a', 'us-east-1b'].map((z) => offeringKey('m5.large', z, 'spot')));
    const plan = planFleet({
      ...base,
      unavailable,
      nodeClaim: nodeClaim({ capacityTypes: ['spot'] }),
      options: cheapestOptions(types, ['m5.large', 'cx9.huge']),
    });
    expect(plan.configs).toEqual([]);
    expect(plan.skipped.map((s) => `${s.instanceType} ${s.zone} ${s.capacityType} ${s.code}`)).toEqual([
      expect.stringMatching(/^cx9\.huge .* UnknownInstanceType$/),
      'm5.large us-east-1a spot OfferingUnavailable',
      'm5.large us-east-1b spot OfferingUnavailable',
      'm5.large us-east-1c spot NoSubnetInZone',
    ]);
  });

  it('never asks for more than 60 instance types or 300 overrides, keeping the cheapest', () => {
    const catalog = loadBundledCatalog('us-east-1');
    const everywhere = resolveInstanceTypes(catalog, undefined).filter(
      (it) =>
        it.info.architecture === 'amd64' &&
        it.info.gpu === null &&
        it.info.accelerator === null &&
        it.offerings.filter((o) => o.capacityType === 'on-demand').length === catalog.zones.length,
    );
    const cheapestFirst = [...everywhere]
      .sort((a, b) => (a.offerings[0]?.price ?? 0) - (b.offerings[0]?.price ?? 0))
      .slice(0, 80);
    expect(cheapestFirst.length).toBe(80);
    const plan = planFleet({
      nodeClaim: nodeClaim({ capacityTypes: ['on-demand'] }),
      options: cheapestOptions(
        new Map(cheapestFirst.map((it) => [it.name, it])),
        cheapestFirst.map((it) => it.name),
      ),
      instanceTypes: new Map(cheapestFirst.map((it) => [it.name, it])),
      subnets: catalog.zones.map((zone, i) => subnet(`subnet-${i}`, zone, 100)),
      launchTemplates: [AMD64],
      unavailable: new Set(),
    });
    const overrides = plan.configs.flatMap((c) => c.overrides);
    expect(catalog.zones.length * MAX_INSTANCE_TYPES).toBeGreaterThan(MAX_FLEET_OVERRIDES);
    expect(overrides).toHaveLength(MAX_FLEET_OVERRIDES);
    expect([...new Set(overrides.map((o) => o.instanceType))]).toEqual(
      cheapestFirst.slice(0, MAX_FLEET_OVERRIDES / catalog.zones.length).map((it) => it.name),
    );
  });

  it('says how many addresses one launch takes in each subnet: the fewest pods of its types there', () => {
    const plan = planFleet({
      ...base,
      nodeClaim: nodeClaim({ capacityTypes: ['on-demand'] }),
      options: cheapestOptions(types, ['m5.large', 'c5.xlarge']),
    });
    const pods = (name: string) => types.get(name)!.capacity.pods!;
    expect(pods('m5.large')).toBeLessThan(pods('c5.xlarge'));
    expect(plan.subnetAddresses).toStrictEqual(
      new Map([
        ['subnet-0000000000000000a', pods('m5.large')],
        ['subnet-0000000000000000b', pods('m5.large')],
      ]),
    );
  });

  it('uses at most the first 60 options', () => {
    const many = Array.from({ length: 70 }, (_, i) => ({
      name: i < MAX_INSTANCE_TYPES ? `unknown-${i}` : 'm5.large',
      price: i,
      capacityType: 'on-demand' as const,
      zone: 'us-east-1a',
    }));
    const plan = planFleet({ ...base, nodeClaim: nodeClaim(), options: many });
    expect(plan.configs).toEqual([]);
    expect(plan.skipped).toHaveLength(MAX_INSTANCE_TYPES);
  });
});
