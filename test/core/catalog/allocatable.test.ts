import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  allocatableOf,
  capacityOf,
  DEFAULT_MAX_PODS,
  eniLimitedPods,
  kubeReservedCpu,
  memoryCapacityOf,
  overheadOf,
  PRIVATE_IPV4_ADDRESS,
  podsOf,
} from '../../../shared/core/catalog/allocatable';
import { bundledInstanceTypes } from '../../../shared/core/catalog/bundled';
import raw from '../../../shared/core/catalog/data/instance-types.json' with { type: 'json' };
import type { InstanceTypeInfo } from '../../../shared/core/catalog/instance-type';
import type { AmiFamily, KubeletConfiguration } from '../../../shared/core/model/ec2nodeclass';
import { isValidationError } from '../../../shared/core/model/errors';
import {
  AMD_GPU,
  CPU,
  EFA,
  EPHEMERAL_STORAGE,
  MEMORY,
  NEURON,
  NEURON_CORE,
  NVIDIA_GPU,
  POD_ENI,
  PODS,
  type Resources,
} from '../../../shared/core/model/resources';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const ROOT_VOLUME = 20 * GiB;

/** Karpenter's published allocatable per type (website instance-types page, v1.14). */
const published = z
  .object({
    instanceTypes: z.array(
      z.object({
        name: z.string(),
        karpenterAllocatable: z.object({
          cpuMillicores: z.number(),
          memoryMiB: z.number(),
          ephemeralStorage: z.string(),
          pods: z.number(),
          podEni: z.number().optional(),
          efa: z.number().optional(),
          nvidiaGpu: z.number().optional(),
          amdGpu: z.number().optional(),
          neuron: z.number().optional(),
          neuroncore: z.number().optional(),
        }),
      }),
    ),
  })
  .parse(raw);
const publishedByName = new Map(published.instanceTypes.map((t) => [t.name, t.karpenterAllocatable]));

const infos = bundledInstanceTypes();
function info(name: string): InstanceTypeInfo {
  const found = infos.find((i) => i.name === name);
  if (!found) throw new Error(`no bundled type ${name}`);
  return found;
}

function allocatable(
  it: InstanceTypeInfo,
  kubelet?: KubeletConfiguration,
  amiFamily: AmiFamily = 'AL2023',
  rootVolume = ROOT_VOLUME,
): Resources {
  const capacity = capacityOf(it, kubelet, rootVolume, amiFamily);
  return allocatableOf(capacity, overheadOf(it, capacity, kubelet, amiFamily));
}

/** The published record's shape, computed by podlift (absent extended resources left out). */
function asPublished(a: Resources): Record<string, number | string> {
  const out: Record<string, number | string> = {
    cpuMillicores: a[CPU],
    memoryMiB: a[MEMORY] / MiB,
    ephemeralStorage:
      a[EPHEMERAL_STORAGE] % GiB === 0 ? `${a[EPHEMERAL_STORAGE] / GiB}Gi` : String(a[EPHEMERAL_STORAGE]),
    pods: a[PODS],
  };
  const extended: Record<string, string> = {
    podEni: POD_ENI,
    efa: EFA,
    nvidiaGpu: NVIDIA_GPU,
    amdGpu: AMD_GPU,
    neuron: NEURON,
    neuroncore: NEURON_CORE,
  };
  for (const [key, resource] of Object.entries(extended)) {
    if (a[resource] !== undefined) out[key] = a[resource];
  }
  return out;
}

describe('allocatable with default settings', () => {
  const withEni = infos.filter((i) => i.eni !== null);

  it('covers every bundled type that has ENI limits', () => {
    expect(withEni).toHaveLength(1355);
  });

  it("equals Karpenter's published allocatable for every type with ENI limits", () => {
    const mismatches: string[] = [];
    // The VPC-limits table in the data (2026-08-06) is newer than the docs page (2026-07-11): it
    // marks these types trunking-compatible, so they gain vpc.amazonaws.com/pod-eni = branch ENIs,
    // exactly as Karpenter's awsPodENI would with that table. Everything else must match.
    const newlyTrunking: string[] = [];
    for (const it of withEni) {
      const expected: Record<string, number | string> = { ...publishedByName.get(it.name) };
      const actual = asPublished(allocatable(it));
      if (expected.podEni === undefined && actual.podEni !== undefined && it.eni?.trunkingCompatible) {
        expect(actual.podEni).toBe(it.eni.branchInterfaces);
        delete actual.podEni;
        newlyTrunking.push(it.name);
      }
      if (JSON.stringify(Object.entries(actual).sort()) !== JSON.stringify(Object.entries(expected).sort())) {
        mismatches.push(`${it.name}: got ${JSON.stringify(actual)}, published ${JSON.stringify(expected)}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(newlyTrunking).toHaveLength(56);
  });

  it('computes pods as the ENI formula on the default network card', () => {
    expect(eniLimitedPods(info('m5.large'))).toBe(29); // 3 × (10 − 1) + 2
    expect(eniLimitedPods(info('p4d.24xlarge'))).toBe(737); // 15 of 60 ENIs are on card 0
    expect(eniLimitedPods(info('m5.large'), 1)).toBe(20);
    expect(eniLimitedPods(info('m5.large'), 3)).toBe(0);
  });

  it('falls back to kubelet’s 110 pods when the ENI limits are unknown', () => {
    const hpc = info('hpc7a.96xlarge');
    expect(hpc.eni).toBeNull();
    expect(allocatable(hpc)[PODS]).toBe(DEFAULT_MAX_PODS);
  });
});

describe('kubeReservedCpu', () => {
  it.each([
    [1000, 60],
    [2000, 70],
    [4000, 80],
    [8000, 90],
    [96_000, 310],
    [500, 30],
  ])('reserves %i millicores → %i', (cpu, reserved) => {
    expect(kubeReservedCpu(cpu)).toBe(reserved);
  });
});

describe('memory capacity', () => {
  it('subtracts 7.5% VM overhead rounded up to a MiB', () => {
    // m5.large: 8192 MiB − ceil(614.4) MiB
    expect(memoryCapacityOf(info('m5.large'))).toBe(7577 * MiB);
  });

  it('subtracts 64 MiB of CMA on arm64 before the VM overhead', () => {
    // m6g.large: 8128 MiB − ceil(609.6) MiB
    const graviton = info('m6g.large');
    expect(graviton.architecture).toBe('arm64');
    expect(memoryCapacityOf(graviton)).toBe(7518 * MiB);
    expect(allocatable(graviton)[MEMORY]).toBe((7518 - 574 - 100) * MiB);
  });

  it('matches Karpenter’s own table tests', () => {
    const base = info('m5.large');
    expect(memoryCapacityOf({ ...base, memoryMiB: 8192 })).toBe(7_945_060_352);
    expect(memoryCapacityOf({ ...base, memoryMiB: 8192, architecture: 'arm64' })).toBe(7_883_194_368);
    expect(memoryCapacityOf({ ...base, memoryMiB: 512, architecture: 'arm64' })).toBe(434_110_464);
  });
});

describe('kubelet settings', () => {
  const m5 = info('m5.large'); // 2 vCPU, 29 ENI pods, capacity 7577Mi
  const cases: {
    name: string;
    kubelet: KubeletConfiguration;
    amiFamily?: AmiFamily;
    expected: Partial<Record<string, number>>;
  }[] = [
    {
      name: 'maxPods raises pods but AL2023 keeps ENI-limited kube-reserved memory',
      kubelet: { maxPods: 110 },
      expected: { [PODS]: 110, [MEMORY]: (7577 - 574 - 100) * MiB },
    },
    {
      name: 'maxPods on Bottlerocket sizes kube-reserved memory from maxPods',
      kubelet: { maxPods: 110 },
      amiFamily: 'Bottlerocket',
      expected: { [PODS]: 110, [MEMORY]: (7577 - (11 * 110 + 255) - 100) * MiB },
    },
    {
      name: 'podsPerCore caps pods at podsPerCore × vCPUs',
      kubelet: { podsPerCore: 10 },
      expected: { [PODS]: 20 },
    },
    {
      name: 'podsPerCore above the ENI limit changes nothing',
      kubelet: { podsPerCore: 100 },
      expected: { [PODS]: 29 },
    },
    {
      name: 'podsPerCore and maxPods take the smaller',
      kubelet: { maxPods: 8, podsPerCore: 10 },
      expected: { [PODS]: 8 },
    },
    {
      name: 'Bottlerocket ignores podsPerCore',
      kubelet: { podsPerCore: 10 },
      amiFamily: 'Bottlerocket',
      expected: { [PODS]: 29 },
    },
    {
      name: 'Windows is not ENI-limited',
      kubelet: {},
      amiFamily: 'Windows2022',
      expected: { [PODS]: 110, [MEMORY]: (7577 - (11 * 110 + 255) - 100) * MiB, [PRIVATE_IPV4_ADDRESS]: 9 },
    },
    {
      name: 'kubeReserved replaces the computed values it names',
      kubelet: { kubeReserved: { cpu: '200m', memory: '1Gi', 'ephemeral-storage': '3Gi' } },
      expected: { [CPU]: 1800, [MEMORY]: (7577 - 1024 - 100) * MiB, [EPHEMERAL_STORAGE]: 15 * GiB },
    },
    {
      name: 'kubeReserved leaves the values it does not name',
      kubelet: { kubeReserved: { cpu: '1' } },
      expected: { [CPU]: 1000, [MEMORY]: (7577 - 574 - 100) * MiB },
    },
    {
      name: 'systemReserved is subtracted as well',
      kubelet: { systemReserved: { cpu: '100m', memory: '100Mi', 'ephemeral-storage': '1Gi' } },
      expected: { [CPU]: 1830, [MEMORY]: (7577 - 574 - 100 - 100) * MiB, [EPHEMERAL_STORAGE]: 16 * GiB },
    },
    {
      name: 'evictionHard memory.available as a percentage of memory capacity, rounded up',
      kubelet: { evictionHard: { 'memory.available': '5%' } },
      expected: { [MEMORY]: 7577 * MiB - 574 * MiB - Math.ceil(((7577 * MiB) / 100) * 5) },
    },
    {
      name: 'evictionHard memory.available as a quantity',
      kubelet: { evictionHard: { 'memory.available': '500Mi' } },
      expected: { [MEMORY]: (7577 - 574 - 500) * MiB },
    },
    {
      name: 'evictionHard nodefs.available as a percentage of the root volume',
      kubelet: { evictionHard: { 'nodefs.available': '15%' } },
      expected: { [EPHEMERAL_STORAGE]: 20 * GiB - GiB - Math.ceil(((20 * GiB) / 100) * 15) },
    },
    {
      name: 'evictionHard of 100% disables the threshold',
      kubelet: { evictionHard: { 'memory.available': '100%', 'nodefs.available': '100%' } },
      expected: { [MEMORY]: (7577 - 574) * MiB, [EPHEMERAL_STORAGE]: 19 * GiB },
    },
    {
      name: 'evictionSoft does not reduce allocatable',
      kubelet: { evictionSoft: { 'memory.available': '1Gi', 'nodefs.available': '50%' } },
      expected: { [MEMORY]: (7577 - 574 - 100) * MiB, [EPHEMERAL_STORAGE]: 17 * GiB },
    },
  ];
  it.each(cases)('$name', ({ kubelet, amiFamily, expected }) => {
    const a = allocatable(m5, kubelet, amiFamily);
    for (const [resource, value] of Object.entries(expected)) expect(a[resource], resource).toBe(value);
  });

  it('uses the node class root volume for ephemeral-storage', () => {
    const a = allocatable(m5, undefined, 'AL2023', 100 * GiB);
    expect(a[EPHEMERAL_STORAGE]).toBe(100 * GiB - GiB - 10 * GiB);
  });

  it('never reports negative allocatable', () => {
    const a = allocatable(m5, { systemReserved: { cpu: '64' } });
    expect(a[CPU]).toBe(0);
  });

  it('keeps overhead on resources the node lacks out of allocatable', () => {
    const a = allocatable(m5, { kubeReserved: { pid: '1000' } });
    expect(a.pid).toBeUndefined();
  });

  it('rejects a malformed quantity, naming the field', () => {
    let error: unknown;
    try {
      overheadOf(m5, capacityOf(m5, undefined, ROOT_VOLUME), { kubeReserved: { memory: 'lots' } });
    } catch (e) {
      error = e;
    }
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toContain('kubelet.kubeReserved.memory');
  });

  it('rejects a malformed percentage', () => {
    expect(() =>
      overheadOf(m5, capacityOf(m5, undefined, ROOT_VOLUME), { evictionHard: { 'memory.available': 'x%' } }),
    ).toThrow(/kubelet.evictionHard.memory.available/);
  });

  it('computes pods the same way capacityOf does', () => {
    expect(podsOf(m5, { maxPods: 50, podsPerCore: 4 })).toBe(8);
    expect(capacityOf(m5, { maxPods: 50, podsPerCore: 4 }, ROOT_VOLUME)[PODS]).toBe(8);
  });
});

describe('kube-reserved memory per AMI family', () => {
  // aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go "should set max-pods to
  // user-defined value": t3.large (3 ENIs × 12 IPv4, 35 ENI-limited pods) with maxPods 10 →
  // 11 × 35 + 255 for the ENI-limited families, 11 × 10 + 255 for Bottlerocket and Windows; and
  // without maxPods Windows is not ENI-limited: 110 pods and 11 × 110 + 255
  // ("should reserve ENIs ..." entries; its ENI reservation does not change Windows).
  const t3 = info('t3.large');
  const kubeReservedMiB = (family: AmiFamily, kubelet: KubeletConfiguration) =>
    (overheadOf(t3, capacityOf(t3, kubelet, ROOT_VOLUME, family), kubelet, family).kubeReserved[MEMORY] ??
      0) / MiB;
  it.each([
    ['AL2', 10, 640],
    ['AL2023', 10, 640],
    ['Custom', 10, 640],
    ['Bottlerocket', 10, 365],
    ['Windows2019', 10, 365],
    ['Windows2022', 10, 365],
    ['Windows2025', 10, 365],
  ] as const)('%s with maxPods %i reserves %i Mi', (family, maxPods, mib) => {
    expect(podsOf(t3, { maxPods }, family)).toBe(maxPods);
    expect(kubeReservedMiB(family, { maxPods })).toBe(mib);
  });
  it.each(['Windows2019', 'Windows2022', 'Windows2025'] as const)(
    '%s without maxPods has 110 pods and reserves 1465 Mi',
    (family) => {
      expect(podsOf(t3, {}, family)).toBe(110);
      expect(kubeReservedMiB(family, {})).toBe(1465);
    },
  );
});

describe('extended resources in capacity', () => {
  it('reports GPUs, Neuron devices and cores, pod ENIs and EFA', () => {
    expect(capacityOf(info('p4d.24xlarge'), undefined, ROOT_VOLUME)).toMatchObject({
      [NVIDIA_GPU]: 8,
      [EFA]: 4,
      [POD_ENI]: 62,
    });
    expect(capacityOf(info('inf2.xlarge'), undefined, ROOT_VOLUME)).toMatchObject({
      [NEURON]: 1,
      [NEURON_CORE]: 2,
    });
    expect(capacityOf(info('g4ad.xlarge'), undefined, ROOT_VOLUME)[AMD_GPU]).toBe(1);
  });

  it('offers vpc.amazonaws.com/PrivateIPv4Address on Windows only, and not for a type the VPC limits table lacks', () => {
    // Karpenter's types.go privateIPv4Address (Limits[type].IPv4PerInterface - 1, else 0) and
    // suite_test.go "should not launch instance type for vpc.amazonaws.com/PrivateIPv4Address if
    // VPC resource controller doesn't advertise it".
    expect(capacityOf(info('m5.large'), undefined, ROOT_VOLUME, 'Windows2022')[PRIVATE_IPV4_ADDRESS]).toBe(9);
    expect(
      capacityOf(info('m5.large'), undefined, ROOT_VOLUME, 'AL2023')[PRIVATE_IPV4_ADDRESS],
    ).toBeUndefined();
    expect(info('hpc6a.48xlarge').eni).toBeNull();
    expect(
      capacityOf(info('hpc6a.48xlarge'), undefined, ROOT_VOLUME, 'Windows2022')[PRIVATE_IPV4_ADDRESS],
    ).toBeUndefined();
  });

  it('leaves zero-valued extended resources out', () => {
    const c = capacityOf(info('m5.large'), undefined, ROOT_VOLUME);
    expect(Object.keys(c).sort()).toEqual([CPU, EPHEMERAL_STORAGE, MEMORY, PODS, POD_ENI].sort());
  });

  it('does not count non-Neuron accelerators as Neuron devices', () => {
    expect(capacityOf(info('dl2q.24xlarge'), undefined, ROOT_VOLUME)[NEURON]).toBeUndefined();
  });
});
