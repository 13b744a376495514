import { describe, expect, it } from 'vitest';
import { planFleet } from '../../../shared/aws/fleet/fleet-plan';
import {
  applyLaunchFilters,
  exoticInstanceFilter,
  isExoticInstanceType,
  type LaunchFilterContext,
  spotOfferingFilter,
} from '../../../shared/aws/fleet/launch-filters';
import { HABANA_GAUDI } from '../../../shared/core/catalog/allocatable';
import type { InstanceType, Offering } from '../../../shared/core/catalog/instance-type';
import { LABEL_INSTANCE_TYPE } from '../../../shared/core/model/labels';
import { AMD_GPU, NEURON, NEURON_CORE } from '../../../shared/core/model/resources';
import type { LaunchTemplateRef } from '../../../shared/core/ports/launch-templates';
import {
  cheapestOptions,
  launcherWorld,
  launchInstanceTypes,
  launchRequest,
  RESOLVED_SUBNETS,
} from '../../../sim/world/aws/launch-world';
import { nodeClaim } from '../../../sim/world/builders';

const types = launchInstanceTypes();
const m5 = types.get('m5.large')!;
const c5 = types.get('c5.xlarge')!;
const g4dn = types.get('g4dn.xlarge')!;

/** `base` under another name, with other hardware facts or capacity. */
function variant(
  base: InstanceType,
  name: string,
  change: Partial<Pick<InstanceType, 'capacity'>> & { size?: string },
) {
  return {
    ...base,
    name,
    info: { ...base.info, name, size: change.size ?? base.info.size },
    capacity: change.capacity ?? base.capacity,
  };
}

/** `base` with exactly these offerings. */
function offered(
  base: InstanceType,
  name: string,
  offerings: Array<Pick<Offering, 'capacityType' | 'price'>>,
) {
  return {
    ...variant(base, name, {}),
    offerings: offerings.map((o) => ({ ...o, zone: 'us-east-1a', available: true })),
  };
}

const usableEverywhere: LaunchFilterContext = {
  hasMinValues: false,
  allowsSpotAndOnDemand: true,
  usable: (_it, o) => o.available,
};

describe('isExoticInstanceType', () => {
  it('is true for metal sizes and for GPU, Neuron and Gaudi capacity, as Karpenter decides', () => {
    expect(isExoticInstanceType(m5)).toBe(false);
    expect(isExoticInstanceType(g4dn)).toBe(true);
    expect(isExoticInstanceType(variant(m5, 'm5.metal', { size: 'metal' }))).toBe(true);
    expect(isExoticInstanceType(variant(m5, 'c6i.metal-24xl', { size: 'metal-24xl' }))).toBe(true);
    for (const resource of [NEURON, NEURON_CORE, AMD_GPU, HABANA_GAUDI])
      expect(isExoticInstanceType(variant(m5, 'x', { capacity: { ...m5.capacity, [resource]: 1 } }))).toBe(
        true,
      );
  });
});

describe('exoticInstanceFilter', () => {
  const metal = variant(m5, 'm5.metal', { size: 'metal' });

  it('drops metal and GPU types while a generic type has a usable offering', () => {
    const { kept, rejected } = exoticInstanceFilter([g4dn, m5, metal], usableEverywhere);
    expect(kept.map((t) => t.name)).toStrictEqual(['m5.large']);
    expect(rejected.map((t) => t.name)).toStrictEqual(['g4dn.xlarge', 'm5.metal']);
  });

  it('keeps exotic types when they are all there is, or no generic type has a usable offering', () => {
    expect(exoticInstanceFilter([g4dn, metal], usableEverywhere).kept).toStrictEqual([g4dn, metal]);
    const genericUnusable = { ...usableEverywhere, usable: (it: InstanceType) => it !== m5 };
    expect(exoticInstanceFilter([g4dn, m5], genericUnusable).kept).toStrictEqual([g4dn, m5]);
  });

  it('filters nothing when the NodeClaim carries minValues', () => {
    expect(exoticInstanceFilter([g4dn, m5], { ...usableEverywhere, hasMinValues: true }).kept).toStrictEqual([
      g4dn,
      m5,
    ]);
  });
});

describe('spotOfferingFilter', () => {
  const cheap = offered(m5, 'cheap', [
    { capacityType: 'on-demand', price: 0.1 },
    { capacityType: 'spot', price: 0.05 },
  ]);
  const dear = offered(c5, 'dear', [
    { capacityType: 'on-demand', price: 0.2 },
    { capacityType: 'spot', price: 0.15 },
  ]);
  const spotOnly = offered(c5, 'spot-only', [{ capacityType: 'spot', price: 0.12 }]);
  const atPrice = offered(c5, 'at-price', [{ capacityType: 'spot', price: 0.1 }]);

  it('removes spot offerings dearer than the cheapest usable on-demand one, and types left with none', () => {
    const { kept, rejected } = spotOfferingFilter([cheap, dear, spotOnly, atPrice], usableEverywhere);
    expect(kept.map((t) => [t.name, t.offerings.map((o) => `${o.capacityType} ${o.price}`)])).toStrictEqual([
      ['cheap', ['on-demand 0.1', 'spot 0.05']],
      ['dear', ['on-demand 0.2']],
      ['at-price', ['spot 0.1']],
    ]);
    expect(rejected.map((t) => t.name)).toStrictEqual(['spot-only']);
  });

  it('judges by usable on-demand offerings only', () => {
    const cheapOnDemandUnusable = {
      ...usableEverywhere,
      usable: (it: InstanceType, o: Offering) => !(it === cheap && o.capacityType === 'on-demand'),
    };
    expect(spotOfferingFilter([cheap, dear], cheapOnDemandUnusable).kept).toStrictEqual([cheap, dear]);
  });

  it('filters nothing without both usable spot and on-demand, for single-capacity-type NodeClaims, or with minValues', () => {
    expect(
      spotOfferingFilter([dear, spotOnly], {
        ...usableEverywhere,
        usable: (_i, o) => o.capacityType === 'spot',
      }).kept,
    ).toStrictEqual([dear, spotOnly]);
    expect(
      spotOfferingFilter([cheap, dear], { ...usableEverywhere, allowsSpotAndOnDemand: false }).kept,
    ).toStrictEqual([cheap, dear]);
    expect(spotOfferingFilter([cheap, dear], { ...usableEverywhere, hasMinValues: true }).kept).toStrictEqual(
      [cheap, dear],
    );
  });

  it('runs after the exotic filter, which may remove the cheapest on-demand offering', () => {
    const gpuCheap = offered(g4dn, 'gpu-cheap', [{ capacityType: 'on-demand', price: 0.01 }]);
    const { kept, rejected } = applyLaunchFilters([gpuCheap, dear], usableEverywhere);
    expect(kept).toStrictEqual([dear]);
    expect(rejected).toStrictEqual([{ instanceType: 'gpu-cheap', filter: 'exotic-instance-filter' }]);
  });
});

describe('planFleet with the launch filters', () => {
  const ANY_TEMPLATE: LaunchTemplateRef = { launchTemplateName: 'lt', imageId: 'ami-1', requirements: [] };
  /** c5.xlarge with spot at 0.5 in every zone: dearer than m5.large on-demand (0.096). */
  const dearSpotC5 = {
    ...c5,
    offerings: c5.offerings.map((o) => (o.capacityType === 'spot' ? { ...o, price: 0.5 } : o)),
  };
  const base = {
    instanceTypes: new Map([...types, ['c5.xlarge', dearSpotC5]]),
    subnets: RESOLVED_SUBNETS,
    launchTemplates: [ANY_TEMPLATE],
    unavailable: new Set<string>(),
    options: cheapestOptions(types, ['m5.large', 'c5.xlarge']),
  };

  it('never asks a mixed NodeClaim for spot dearer than the cheapest on-demand offering', () => {
    const plan = planFleet({ ...base, nodeClaim: nodeClaim() });
    expect(plan.capacityType).toBe('spot');
    expect([...new Set(plan.configs.flatMap((c) => c.overrides.map((o) => o.instanceType)))]).toStrictEqual([
      'm5.large',
    ]);
  });

  it('buys on-demand when only dearer spot was left', () => {
    const unavailable = new Set(['us-east-1a', 'us-east-1b', 'us-east-1c'].map((z) => `spot:m5.large:${z}`));
    const plan = planFleet({ ...base, unavailable, nodeClaim: nodeClaim() });
    expect(plan.capacityType).toBe('on-demand');
  });

  it('keeps dear spot for a spot-only NodeClaim', () => {
    const unavailable = new Set(['us-east-1a', 'us-east-1b', 'us-east-1c'].map((z) => `spot:m5.large:${z}`));
    const plan = planFleet({ ...base, unavailable, nodeClaim: nodeClaim({ capacityTypes: ['spot'] }) });
    expect(plan.configs.flatMap((c) => c.overrides.map((o) => `${o.instanceType} ${o.price}`))).toStrictEqual(
      ['c5.xlarge 0.5', 'c5.xlarge 0.5'],
    );
  });
});

describe('Ec2InstanceLauncher with the launch filters', () => {
  it('does not offer price-capacity-optimized a GPU type the pods did not ask for', async () => {
    const { launcher, instanceTypes, fleetCalls } = await launcherWorld();

    // Spot only, so the spot-offering filter stays out of it.
    await launcher.launch(
      launchRequest(instanceTypes, {
        types: ['m5.large', 'g4dn.xlarge'],
        nodeClaim: nodeClaim({ capacityTypes: ['spot'] }),
      }),
    );

    const asked = fleetCalls()[0]!.LaunchTemplateConfigs!.flatMap((c) =>
      c.Overrides!.map((o) => o.InstanceType),
    );
    expect(new Set(asked)).toStrictEqual(new Set(['m5.large']));
  });

  it('launches the GPU type when the pods asked for it (it is then the only option)', async () => {
    const { launcher, instanceTypes } = await launcherWorld();
    const launched = await launcher.launch(
      launchRequest(instanceTypes, {
        types: ['g4dn.xlarge'],
        nodeClaim: nodeClaim({
          requirements: [{ key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['g4dn.xlarge'] }],
        }),
      }),
    );
    expect(launched.instanceType).toBe('g4dn.xlarge');
  });
});
