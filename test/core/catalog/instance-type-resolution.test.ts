import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  bundledInstanceTypes,
  bundledRegions,
  bundledSpotAdvisor,
  isUnknownRegionError,
  loadBundledCatalog,
  UnknownRegionError,
} from '../../../shared/core/catalog/bundled';
import rawPrices from '../../../shared/core/catalog/data/prices.json' with { type: 'json' };
import {
  type Catalog,
  type InstanceType,
  type InstanceTypeInfo,
  offeringKey,
} from '../../../shared/core/catalog/instance-type';
import {
  estimateSpotPrices,
  resolveInstanceTypes,
} from '../../../shared/core/catalog/instance-type-resolution';
import { availabilityZones } from '../../../shared/core/catalog/regions';
import { isValidationError } from '../../../shared/core/model/errors';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
  LABEL_INSTANCE_ACCELERATOR_NAME,
  LABEL_INSTANCE_CAPABILITY_FLEX,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_CPU_MANUFACTURER,
  LABEL_INSTANCE_EBS_BANDWIDTH,
  LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_MANUFACTURER,
  LABEL_INSTANCE_GPU_MEMORY,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_HYPERVISOR,
  LABEL_INSTANCE_LOCAL_NVME,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_NETWORK_BANDWIDTH,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_REGION,
  LABEL_WINDOWS_BUILD,
  LABEL_ZONE,
} from '../../../shared/core/model/labels';
import { Requirements } from '../../../shared/core/model/requirements';
import { NEURON, NEURON_CORE, NVIDIA_GPU } from '../../../shared/core/model/resources';

const prices = z
  .object({
    onDemand: z.record(z.string(), z.object({ prices: z.record(z.string(), z.number()) })),
    spotAdvisor: z.object({
      regions: z.record(z.string(), z.record(z.string(), z.tuple([z.number(), z.number()]))),
    }),
  })
  .parse(rawPrices);

const usEast1 = loadBundledCatalog('us-east-1');
const resolved = resolveInstanceTypes(usEast1, undefined);

function find(types: readonly InstanceType[], name: string): InstanceType {
  const found = types.find((t) => t.name === name);
  if (!found) throw new Error(`${name} not resolved`);
  return found;
}

/** Single-valued labels, and the keys that must not exist. */
function labelsOf(requirements: Requirements): { labels: Record<string, string>; absent: string[] } {
  const labels: Record<string, string> = {};
  const absent: string[] = [];
  for (const r of requirements.values()) {
    if (r.single !== undefined) labels[r.key] = r.single;
    else if (r.operator === 'DoesNotExist') absent.push(r.key);
  }
  return { labels, absent: absent.sort() };
}

const US_EAST_1_ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1e', 'us-east-1f'];

function infoBuilder(overrides: Partial<InstanceTypeInfo> = {}): InstanceTypeInfo {
  const m5 = bundledInstanceTypes().find((t) => t.name === 'm5.large');
  if (!m5) throw new Error('m5.large missing');
  return { ...m5, ...overrides };
}

function catalogBuilder(overrides: Partial<Catalog> = {}): Catalog {
  return {
    region: 'test-1',
    zones: ['test-1a', 'test-1b'],
    types: [infoBuilder()],
    prices: {
      onDemand: new Map([['m5.large', 0.1]]),
      spot: new Map([['m5.large', new Map([['test-1a', 0.03]])]]),
    },
    ...overrides,
  };
}

describe('instance type labels', () => {
  it('labels m5.large as Karpenter does', () => {
    const { labels, absent } = labelsOf(find(resolved, 'm5.large').requirements);
    expect(labels).toEqual({
      [LABEL_INSTANCE_TYPE]: 'm5.large',
      [LABEL_ARCH]: 'amd64',
      [LABEL_OS]: 'linux',
      [LABEL_REGION]: 'us-east-1',
      [LABEL_INSTANCE_CATEGORY]: 'm',
      [LABEL_INSTANCE_FAMILY]: 'm5',
      [LABEL_INSTANCE_GENERATION]: '5',
      [LABEL_INSTANCE_SIZE]: 'large',
      [LABEL_INSTANCE_CPU]: '2',
      [LABEL_INSTANCE_CPU_MANUFACTURER]: 'intel',
      [LABEL_INSTANCE_MEMORY]: '8192',
      [LABEL_INSTANCE_HYPERVISOR]: 'nitro',
      [LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT]: 'false',
      [LABEL_INSTANCE_NETWORK_BANDWIDTH]: '750',
      [LABEL_INSTANCE_EBS_BANDWIDTH]: '4750',
      [LABEL_INSTANCE_CAPABILITY_FLEX]: 'false',
    });
    expect(absent).toEqual(
      [
        LABEL_WINDOWS_BUILD,
        LABEL_INSTANCE_LOCAL_NVME,
        LABEL_INSTANCE_GPU_NAME,
        LABEL_INSTANCE_GPU_MANUFACTURER,
        LABEL_INSTANCE_GPU_COUNT,
        LABEL_INSTANCE_GPU_MEMORY,
        LABEL_INSTANCE_ACCELERATOR_NAME,
        LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
        LABEL_INSTANCE_ACCELERATOR_COUNT,
      ].sort(),
    );
  });

  it('puts every offering zone and capacity type in the requirements', () => {
    const m5 = find(resolved, 'm5.large');
    expect([...(m5.requirements.get(LABEL_ZONE)?.values ?? [])].sort()).toEqual(US_EAST_1_ZONES);
    expect([...(m5.requirements.get(LABEL_CAPACITY_TYPE)?.values ?? [])].sort()).toEqual([
      'on-demand',
      'spot',
    ]);
  });

  it('labels p4d.24xlarge GPUs with per-GPU memory and its local NVMe', () => {
    const { labels } = labelsOf(find(resolved, 'p4d.24xlarge').requirements);
    expect(labels).toMatchObject({
      [LABEL_INSTANCE_GPU_NAME]: 'a100',
      [LABEL_INSTANCE_GPU_MANUFACTURER]: 'nvidia',
      [LABEL_INSTANCE_GPU_COUNT]: '8',
      [LABEL_INSTANCE_GPU_MEMORY]: '40960',
      [LABEL_INSTANCE_LOCAL_NVME]: '8000',
      [LABEL_INSTANCE_CPU]: '96',
      [LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT]: 'true',
      [LABEL_INSTANCE_NETWORK_BANDWIDTH]: '400000',
    });
    expect(find(resolved, 'p4d.24xlarge').allocatable[NVIDIA_GPU]).toBe(8);
  });

  it('labels inf2.xlarge with its Neuron accelerator and no GPU', () => {
    const inf2 = find(resolved, 'inf2.xlarge');
    const { labels, absent } = labelsOf(inf2.requirements);
    expect(labels).toMatchObject({
      [LABEL_INSTANCE_ACCELERATOR_NAME]: 'inferentia2',
      [LABEL_INSTANCE_ACCELERATOR_MANUFACTURER]: 'aws',
      [LABEL_INSTANCE_ACCELERATOR_COUNT]: '1',
      [LABEL_INSTANCE_CATEGORY]: 'inf',
      [LABEL_INSTANCE_GENERATION]: '2',
      [LABEL_INSTANCE_CPU_MANUFACTURER]: 'amd',
    });
    expect(absent).toContain(LABEL_INSTANCE_GPU_NAME);
    expect(inf2.allocatable).toMatchObject({ [NEURON]: 1, [NEURON_CORE]: 2 });
  });

  it('labels g5.xlarge with its A10G and instance store', () => {
    const { labels } = labelsOf(find(resolved, 'g5.xlarge').requirements);
    expect(labels).toMatchObject({
      [LABEL_INSTANCE_GPU_NAME]: 'a10g',
      [LABEL_INSTANCE_GPU_MANUFACTURER]: 'nvidia',
      [LABEL_INSTANCE_GPU_COUNT]: '1',
      [LABEL_INSTANCE_GPU_MEMORY]: '22888',
      [LABEL_INSTANCE_LOCAL_NVME]: '250',
    });
  });

  it('gives bare metal an empty hypervisor label, as Karpenter does', () => {
    expect(labelsOf(find(resolved, 'm5.metal').requirements).labels[LABEL_INSTANCE_HYPERVISOR]).toBe('');
  });

  it('marks flex families as capability-flex', () => {
    expect(
      labelsOf(find(resolved, 'c7i-flex.large').requirements).labels[LABEL_INSTANCE_CAPABILITY_FLEX],
    ).toBe('true');
  });

  it('matches pod selectors on the labels', () => {
    const pod = Requirements.fromLabels({ [LABEL_INSTANCE_GPU_NAME]: 'a100', [LABEL_ZONE]: 'us-east-1c' });
    const matching = resolved.filter((t) =>
      [...pod.values()].every((r) => {
        const mine = t.requirements.get(r.key);
        return mine !== undefined && [...r.values].every((v) => mine.has(v));
      }),
    );
    expect(matching.map((t) => t.name).sort()).toEqual(['p4d.24xlarge', 'p4de.24xlarge']);
  });

  it('labels Windows nodes with the OS and build', () => {
    const windows = resolveInstanceTypes(usEast1, {
      amiFamily: 'Windows2022',
      rootVolumeBytes: 50 * 2 ** 30,
    });
    const { labels } = labelsOf(find(windows, 'm5.large').requirements);
    expect(labels).toMatchObject({ [LABEL_OS]: 'windows', [LABEL_WINDOWS_BUILD]: '10.0.20348' });
    expect(find(windows, 'm6g.large').requirements.get(LABEL_OS)?.has('windows')).toBe(false);
  });
});

describe('offerings', () => {
  it('offers on-demand and spot in every us-east-1 zone', () => {
    const m5 = find(resolved, 'm5.large');
    expect(m5.offerings).toHaveLength(12);
    expect(m5.offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.price)).toEqual(
      Array(6).fill(0.096),
    );
    expect(m5.offerings.every((o) => o.available)).toBe(true);
  });

  it('uses the region’s own zones', () => {
    const usWest1 = resolveInstanceTypes(loadBundledCatalog('us-west-1'), undefined);
    expect([...new Set(find(usWest1, 'm5.large').offerings.map((o) => o.zone))]).toEqual([
      'us-west-1a',
      'us-west-1c',
    ]);
  });

  it('offers no spot in GovCloud, which the Spot Advisor does not cover', () => {
    const gov = resolveInstanceTypes(loadBundledCatalog('us-gov-west-1'), undefined);
    expect(gov.length).toBeGreaterThan(0);
    expect(gov.every((t) => t.offerings.every((o) => o.capacityType === 'on-demand'))).toBe(true);
    expect([...(find(gov, 'm5.large').requirements.get(LABEL_CAPACITY_TYPE)?.values ?? [])]).toEqual([
      'on-demand',
    ]);
  });

  it('drops types without a price in the region', () => {
    const unpriced = bundledInstanceTypes().filter((t) => !(t.name in prices.onDemand['eu-west-1'].prices));
    expect(unpriced.length).toBeGreaterThan(0);
    const euWest1 = new Set(
      resolveInstanceTypes(loadBundledCatalog('eu-west-1'), undefined).map((t) => t.name),
    );
    expect(unpriced.filter((t) => euWest1.has(t.name))).toEqual([]);
    expect(euWest1.size).toBe(528);
  });

  it('estimates spot as on-demand less the advertised savings, in every zone', () => {
    const [savings] = prices.spotAdvisor.regions['us-east-1']['m5.large'];
    const spot = find(resolved, 'm5.large').offerings.filter((o) => o.capacityType === 'spot');
    expect(spot.map((o) => o.zone)).toEqual(US_EAST_1_ZONES);
    for (const o of spot) expect(o.price).toBeCloseTo(0.096 * (1 - savings / 100), 10);
  });

  it('offers no spot for a type the Spot Advisor does not list', () => {
    const advisor = prices.spotAdvisor.regions['us-east-1'];
    const unlisted = resolved.find((t) => !(t.name in advisor));
    expect(unlisted).toBeDefined();
    expect(unlisted?.offerings.every((o) => o.capacityType === 'on-demand')).toBe(true);
  });

  it('respects the capacity types a type supports', () => {
    const catalog = catalogBuilder({ types: [infoBuilder({ capacityTypes: ['on-demand'] })] });
    const [m5] = resolveInstanceTypes(catalog, undefined);
    expect(m5.offerings.map((o) => o.capacityType)).toEqual(['on-demand', 'on-demand']);
  });

  it('limits zones to where the type is offered', () => {
    const catalog = catalogBuilder({ typeZones: new Map([['m5.large', new Set(['test-1b'])]]) });
    const [m5] = resolveInstanceTypes(catalog, undefined);
    expect(m5.offerings).toEqual([
      { zone: 'test-1b', capacityType: 'on-demand', price: 0.1, available: true },
    ]);
    expect([...(m5.requirements.get(LABEL_ZONE)?.values ?? [])]).toEqual(['test-1b']);
  });

  it('marks unavailable offerings without changing labels or other types', () => {
    const unavailable = new Set([offeringKey('m5.large', 'us-east-1a', 'spot')]);
    const marked = resolveInstanceTypes(usEast1, undefined, unavailable);
    const m5 = find(marked, 'm5.large');
    expect(m5.offerings.filter((o) => !o.available)).toEqual([
      expect.objectContaining({ zone: 'us-east-1a', capacityType: 'spot', available: false }),
    ]);
    expect(m5.requirements).toBe(find(resolved, 'm5.large').requirements);
    expect(find(marked, 'c5.large')).toBe(find(resolved, 'c5.large'));
    expect(find(resolved, 'm5.large').offerings.every((o) => o.available)).toBe(true);
  });
});

describe('estimateSpotPrices', () => {
  it('applies the savings percentage to the on-demand price in each zone', () => {
    const spot = estimateSpotPrices(
      new Map([
        ['a.large', 1],
        ['b.large', 2],
        ['c.large', 3],
      ]),
      { 'a.large': [70, 0], 'b.large': [-10, 4] },
      ['z1', 'z2'],
    );
    expect([...spot.keys()]).toEqual(['a.large', 'b.large']);
    expect(spot.get('a.large')?.get('z1')).toBeCloseTo(0.3, 12);
    expect(spot.get('a.large')?.get('z2')).toBeCloseTo(0.3, 12);
    expect(spot.get('b.large')?.get('z1')).toBeCloseTo(2.2, 12);
  });
});

describe('loadBundledCatalog', () => {
  it('knows the 28 priced regions, each with zones', () => {
    const regions = bundledRegions();
    expect(regions).toHaveLength(28);
    expect(regions).toContain('us-gov-east-1');
    for (const region of regions) expect(availabilityZones(region)?.length, region).toBeGreaterThanOrEqual(2);
    expect(loadBundledCatalog('us-east-1').zones).toEqual(US_EAST_1_ZONES);
  });

  it('bundles the 1,363 complete instance types', () => {
    const types = bundledInstanceTypes();
    expect(types).toHaveLength(1363);
    expect(types.find((t) => t.name === 'p4d.24xlarge')?.efaCount).toBe(4);
    expect(types.find((t) => t.name === 'mac1.metal')).toBeUndefined();
  });

  it('honours spot price overrides per type and per zone', () => {
    const catalog = loadBundledCatalog('us-east-1', {
      spotPrices: { 'm5.large': 0.01, 'c5.large': { 'us-east-1b': 0.02 } },
    });
    const types = resolveInstanceTypes(catalog, undefined);
    const spot = (name: string) =>
      new Map(
        find(types, name)
          .offerings.filter((o) => o.capacityType === 'spot')
          .map((o) => [o.zone, o.price]),
      );
    expect([...spot('m5.large').values()]).toEqual(Array(6).fill(0.01));
    expect(spot('c5.large').get('us-east-1b')).toBe(0.02);
    expect(spot('c5.large').get('us-east-1a')).toBe(
      find(resolved, 'c5.large').offerings.find((o) => o.zone === 'us-east-1a' && o.capacityType === 'spot')
        ?.price,
    );
  });

  it('rejects an override for a zone outside the region', () => {
    let error: unknown;
    try {
      loadBundledCatalog('us-east-1', { spotPrices: { 'm5.large': { 'us-west-2a': 0.01 } } });
    } catch (e) {
      error = e;
    }
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toContain('spotPrices.m5.large.us-west-2a');
  });

  it('rejects an unknown region, listing the known ones', () => {
    let error: unknown;
    try {
      loadBundledCatalog('mars-north-1');
    } catch (e) {
      error = e;
    }
    expect(isUnknownRegionError(error)).toBe(true);
    expect(error).toBeInstanceOf(UnknownRegionError);
    expect((error as UnknownRegionError).knownRegions).toEqual(bundledRegions());
    expect(String(error)).toMatch(/"mars-north-1".*us-east-1/);
  });

  it('exposes the Spot Advisor interruption buckets', () => {
    const advice = bundledSpotAdvisor('us-east-1').get('m5.large');
    expect(advice?.interruptionLabel).toMatch(/%/);
    expect(bundledSpotAdvisor('us-gov-west-1').size).toBe(0);
  });
});

describe('memoisation', () => {
  it('returns the same array for the same catalog and settings', () => {
    expect(resolveInstanceTypes(usEast1, undefined)).toBe(resolved);
    expect(loadBundledCatalog('us-east-1')).toBe(usEast1);
    const a = resolveInstanceTypes(usEast1, {
      amiFamily: 'AL2023',
      rootVolumeBytes: 2 ** 35,
      kubelet: { maxPods: 50, kubeReserved: { cpu: '1', memory: '1Gi' } },
    });
    const b = resolveInstanceTypes(usEast1, {
      rootVolumeBytes: 2 ** 35,
      kubelet: { kubeReserved: { memory: '1Gi', cpu: '1' }, maxPods: 50 },
      amiFamily: 'AL2023',
    });
    expect(b).toBe(a);
    expect(find(a, 'm5.large').capacity.pods).toBe(50);
  });

  it('recomputes for different settings', () => {
    const other = resolveInstanceTypes(usEast1, {
      amiFamily: 'AL2023',
      rootVolumeBytes: 2 ** 35,
      kubelet: { maxPods: 51 },
    });
    expect(other).not.toBe(resolved);
    expect(find(other, 'm5.large').capacity.pods).toBe(51);
  });

  it('returns the same array for equal unavailable sets', () => {
    const key = offeringKey('m5.large', 'us-east-1b', 'on-demand');
    expect(resolveInstanceTypes(usEast1, undefined, new Set([key]))).toBe(
      resolveInstanceTypes(usEast1, undefined, new Set([key])),
    );
    expect(resolveInstanceTypes(usEast1, undefined, new Set())).toBe(resolved);
  });
});
