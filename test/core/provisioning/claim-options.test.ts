import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { ANY } from '../../../shared/core/catalog/unavailable-offerings';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
} from '../../../shared/core/model/labels';
import { type NodeSelectorRequirement, Requirements } from '../../../shared/core/model/requirements';
import {
  launchOptions,
  MAX_LAUNCH_OPTIONS,
  nodeClaimRequirements,
} from '../../../shared/core/provisioning/claim-options';
import type { NodeClaimPlan } from '../../../shared/core/scheduling/types';
import { resources } from '../../../sim/world/builders';
import { instanceType, instanceTypes } from '../scheduling/fixtures';

const M5 = ['m5.large', 'm5.xlarge', 'm5.2xlarge'].map(instanceType);
const req = (key: string, operator: NodeSelectorRequirement['operator'], values: string[] = []) => ({
  key,
  operator,
  values,
});

/** A plan with just what nodeClaimRequirements reads. */
function plan(
  options: [name: string, capacityType: 'spot' | 'on-demand'][],
  requirements: readonly NodeSelectorRequirement[] = [],
): NodeClaimPlan {
  return {
    instanceTypeOptions: options.map(([name, capacityType], i) => ({
      name,
      capacityType,
      price: i + 1,
      zone: 'us-east-1a',
    })),
    requirements: Requirements.from(requirements),
  } as unknown as NodeClaimPlan;
}

describe('nodeClaimRequirements (nodeclaimtemplate.go ToNodeClaim)', () => {
  it('adds instance-type In the options and capacity-type In their capacity types', () => {
    const r = nodeClaimRequirements(
      plan(
        [
          ['m5.xlarge', 'spot'],
          ['m5.large', 'spot'],
          ['m5.xlarge', 'spot'],
        ],
        [req(LABEL_ARCH, 'In', ['amd64'])],
      ),
    );
    expect(r.toSelectorRequirements()).toStrictEqual([
      req(LABEL_ARCH, 'In', ['amd64']),
      req(LABEL_INSTANCE_TYPE, 'In', ['m5.large', 'm5.xlarge']),
      req(LABEL_CAPACITY_TYPE, 'In', ['spot']),
    ]);
  });

  it('names every capacity type its options have', () => {
    const r = nodeClaimRequirements(
      plan([
        ['m5.large', 'on-demand'],
        ['m5.xlarge', 'spot'],
      ]),
    );
    expect([...(r.get(LABEL_CAPACITY_TYPE)?.values ?? [])]).toStrictEqual(['on-demand', 'spot']);
  });

  it('narrows what the plan required and keeps its minValues', () => {
    const r = nodeClaimRequirements(
      plan(
        [
          ['m5.large', 'spot'],
          ['m5.xlarge', 'spot'],
        ],
        [
          { key: LABEL_INSTANCE_TYPE, operator: 'NotIn', values: ['c5.large'], minValues: 2 },
          req(LABEL_CAPACITY_TYPE, 'In', ['spot', 'on-demand']),
        ],
      ),
    );
    expect(r.toSelectorRequirements()).toStrictEqual([
      { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['m5.large', 'm5.xlarge'], minValues: 2 },
      req(LABEL_CAPACITY_TYPE, 'In', ['spot']),
    ]);
  });

  it('writes at most 60 instance types, the cheapest (MaxInstanceTypes)', () => {
    const many = instanceTypes.slice(0, 70).map((it) => [it.name, 'on-demand'] as [string, 'on-demand']);
    const values = [...(nodeClaimRequirements(plan(many)).get(LABEL_INSTANCE_TYPE)?.values ?? [])];
    expect(values.sort()).toStrictEqual(
      many
        .slice(0, MAX_LAUNCH_OPTIONS)
        .map(([n]) => n)
        .sort(),
    );
  });

  it('leaves a plan without options as it is', () => {
    const p = plan([], [req(LABEL_ARCH, 'In', ['amd64'])]);
    expect(nodeClaimRequirements(p)).toBe(p.requirements);
  });
});

describe('launchOptions (instance.go filterInstanceTypes, CompatibleAvailableFilter)', () => {
  const none = new Set<string>();

  it('keeps the types the requirements allow, each at its cheapest allowed offering, cheapest first', () => {
    const options = launchOptions(
      [req(LABEL_INSTANCE_TYPE, 'In', ['m5.2xlarge', 'm5.large']), req(LABEL_ZONE, 'In', ['us-east-1b'])],
      {},
      M5,
      none,
    );
    expect(options.map((o) => o.name)).toStrictEqual(['m5.large', 'm5.2xlarge']);
    const large = instanceType('m5.large').offerings.filter((o) => o.zone === 'us-east-1b');
    expect(options[0]).toStrictEqual({
      name: 'm5.large',
      price: Math.min(...large.map((o) => o.price)),
      capacityType: large.reduce((a, b) => (b.price < a.price ? b : a)).capacityType,
      zone: 'us-east-1b',
    });
  });

  it('filters by every label of the type, not only the instance type (by requirements)', () => {
    const options = launchOptions(
      [req(LABEL_INSTANCE_CATEGORY, 'In', ['c'])],
      {},
      [...M5, instanceType('c5.large')],
      none,
    );
    expect(options.map((o) => o.name)).toStrictEqual(['c5.large']);
  });

  it('filters out types whose allocatable does not hold the requests (by requests)', () => {
    const options = launchOptions([], resources({ cpu: '3' }), M5, none);
    expect(options.map((o) => o.name)).toStrictEqual(['m5.xlarge', 'm5.2xlarge']);
    expect(launchOptions([], resources({ cpu: '64' }), M5, none)).toStrictEqual([]);
  });

  it('launches only the capacity type the NodeClaim recorded', () => {
    const options = launchOptions([req(LABEL_CAPACITY_TYPE, 'In', ['on-demand'])], {}, M5, none);
    expect(options.every((o) => o.capacityType === 'on-demand')).toBe(true);
    expect(options).toHaveLength(3);
  });

  it('leaves out offerings refused since (available instances), and a type with none left', () => {
    const large = instanceType('m5.large');
    const refused = new Set(
      large.offerings
        .filter((o) => o.capacityType === 'spot')
        .map((o) => offeringKey(large.name, o.zone, 'spot')),
    );
    const spotOnly = [req(LABEL_CAPACITY_TYPE, 'In', ['spot'])];
    expect(launchOptions(spotOnly, {}, M5, refused).map((o) => o.name)).toStrictEqual([
      'm5.xlarge',
      'm5.2xlarge',
    ]);
    const oneZone = new Set([...refused].filter((k) => !k.endsWith('us-east-1c')));
    const left = launchOptions(spotOnly, {}, [large], oneZone);
    expect(left.map((o) => o.zone)).toStrictEqual(['us-east-1c']);
    const unavailable = { ...large, offerings: large.offerings.map((o) => ({ ...o, available: false })) };
    expect(launchOptions([], {}, [unavailable], none)).toStrictEqual([]);
  });

  it('leaves out a capacity type refused as a whole (spot without its service-linked role)', () => {
    const spotGone = new Set([offeringKey(ANY, ANY, 'spot')]);
    const options = launchOptions([], {}, M5, spotGone);
    expect(options.map((o) => o.capacityType)).toStrictEqual(['on-demand', 'on-demand', 'on-demand']);
  });

  it('offers at most 60 instance types, the cheapest (Truncate after OrderByPrice)', () => {
    const options = launchOptions([], {}, instanceTypes, none);
    expect(options).toHaveLength(MAX_LAUNCH_OPTIONS);
    const prices = options.map((o) => o.price);
    expect(prices).toStrictEqual([...prices].sort((a, b) => a - b));
    const cheapest = instanceTypes
      .map((it) => Math.min(...it.offerings.filter((o) => o.available).map((o) => o.price)))
      .sort((a, b) => a - b);
    expect(prices).toStrictEqual(cheapest.slice(0, MAX_LAUNCH_OPTIONS));
  });

  it('orders types of one price by name', () => {
    const large = instanceType('m5.large');
    const twin = { ...large, name: 'a-twin', requirements: large.requirements };
    const zulu = { ...large, name: 'z-twin', requirements: large.requirements };
    // Whatever order the catalog lists them in.
    for (const types of [
      [large, twin, zulu],
      [zulu, large, twin],
      [twin, zulu, large],
    ]) {
      const options = launchOptions([], {}, types, none);
      expect(options.map((o) => o.name)).toStrictEqual(['a-twin', 'm5.large', 'z-twin']);
    }
  });
});
