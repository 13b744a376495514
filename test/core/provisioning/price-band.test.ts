import { describe, expect, it } from 'vitest';
import { LABEL_INSTANCE_FAMILY, LABEL_INSTANCE_TYPE } from '../../../shared/core/model/labels';
import { type NodeSelectorRequirement, Requirements } from '../../../shared/core/model/requirements';
import { withinPriceBand } from '../../../shared/core/provisioning/price-band';
import type { NodeClaimPlan } from '../../../shared/core/scheduling/types';
import { instanceType } from '../scheduling/fixtures';

const TYPES = new Map(
  ['t3.medium', 't3a.medium', 'm5.large', 'm5a.large', 'c5.large', 'm5.xlarge'].map((name) => [
    name,
    instanceType(name),
  ]),
);

/** A plan with just what withinPriceBand reads: options cheapest first, and requirements. */
function plan(
  options: [name: string, price: number, capacityType?: 'spot' | 'on-demand'][],
  requirements: readonly NodeSelectorRequirement[] = [],
): NodeClaimPlan {
  return {
    instanceTypeOptions: options.map(([name, price, capacityType = 'spot']) => ({
      name,
      price,
      capacityType,
      zone: 'us-east-1a',
    })),
    requirements: Requirements.from(requirements),
  } as unknown as NodeClaimPlan;
}

const names = (p: NodeClaimPlan) => p.instanceTypeOptions.map((o) => `${o.name}/${o.capacityType}`);

describe('withinPriceBand (podlift.dev/launch-price-band)', () => {
  const options: [string, number][] = [
    ['t3a.medium', 0.017],
    ['t3.medium', 0.0183],
    ['m5a.large', 0.0212],
    ['m5.large', 0.0326],
    ['m5.xlarge', 0.0653],
  ];

  it('keeps every option without a band, or with one they all fit in: the plan itself', () => {
    const p = plan(options);
    expect(withinPriceBand(p, undefined, TYPES)).toBe(p);
    expect(withinPriceBand(p, 3, TYPES)).toBe(p);
    expect(withinPriceBand(p, 1, TYPES)).not.toBe(p);
  });

  it('keeps the options priced within the band above the cheapest, bounds included', () => {
    expect(names(withinPriceBand(plan(options), 0.25, TYPES))).toEqual([
      't3a.medium/spot',
      't3.medium/spot',
      'm5a.large/spot',
    ]);
    // 0.0170 × 1.25 = 0.02125: m5a.large at exactly the bound stays, a hair above does not.
    expect(
      names(
        withinPriceBand(
          plan([
            ['t3a.medium', 0.017],
            ['m5a.large', 0.02125],
          ]),
          0.25,
          TYPES,
        ),
      ),
    ).toEqual(['t3a.medium/spot', 'm5a.large/spot']);
    expect(
      names(
        withinPriceBand(
          plan([
            ['t3a.medium', 0.017],
            ['m5a.large', 0.0213],
          ]),
          0.25,
          TYPES,
        ),
      ),
    ).toEqual(['t3a.medium/spot']);
    expect(names(withinPriceBand(plan(options), 1, TYPES))).toHaveLength(4);
  });

  it('keeps only the cheapest, and its ties, at 0%', () => {
    expect(
      names(
        withinPriceBand(
          plan([
            ['t3a.medium', 0.017],
            ['t3.medium', 0.017],
            ['m5.large', 0.018],
          ]),
          0,
          TYPES,
        ),
      ),
    ).toEqual(['t3a.medium/spot', 't3.medium/spot']);
  });

  it('measures each capacity type from its own cheapest option', () => {
    const mixed = plan([
      ['t3a.medium', 0.017, 'spot'],
      ['m5.large', 0.0326, 'spot'],
      ['t3a.medium', 0.0376, 'on-demand'],
      ['t3.medium', 0.0416, 'on-demand'],
      ['m5.large', 0.096, 'on-demand'],
    ]);
    expect(names(withinPriceBand(mixed, 0.25, TYPES))).toEqual([
      't3a.medium/spot',
      't3a.medium/on-demand',
      't3.medium/on-demand',
    ]);
  });

  it('widens past the band, cheapest first, as far as the minValues need', () => {
    const family = (minValues: number) =>
      plan(options, [{ key: LABEL_INSTANCE_FAMILY, operator: 'Exists', minValues }]);
    // In the band: t3a, t3 and m5a — three families; m5 is the fourth.
    expect(names(withinPriceBand(family(3), 0.25, TYPES))).toHaveLength(3);
    expect(names(withinPriceBand(family(4), 0.25, TYPES))).toEqual([
      't3a.medium/spot',
      't3.medium/spot',
      'm5a.large/spot',
      'm5.large/spot',
    ]);
    // Only a type of a new value widens it: m5.xlarge adds no family past m5.large.
    const types = plan(options, [{ key: LABEL_INSTANCE_TYPE, operator: 'Exists', minValues: 5 }]);
    expect(names(withinPriceBand(types, 0, TYPES))).toHaveLength(5);
    expect(
      names(
        withinPriceBand(
          plan(
            [
              ['t3a.medium', 0.017],
              ['m5.large', 0.0326],
              ['m5.xlarge', 0.0653],
              ['t3.medium', 0.07],
            ],
            [{ key: LABEL_INSTANCE_FAMILY, operator: 'Exists', minValues: 3 }],
          ),
          0,
          TYPES,
        ),
      ),
    ).toEqual(['t3a.medium/spot', 'm5.large/spot', 't3.medium/spot']);
  });

  it('widens only for minValues: other requirements, types without the label and unknown types add nothing', () => {
    // Requirements without minValues do not widen the band.
    const plain = plan(options, [
      { key: LABEL_INSTANCE_TYPE, operator: 'Exists' },
      { key: LABEL_INSTANCE_FAMILY, operator: 'NotIn', values: ['c5'] },
    ]);
    expect(names(withinPriceBand(plain, 0, TYPES))).toEqual(['t3a.medium/spot']);
    // A type the catalog does not know, or one without the label, has no value to add: it is not
    // taken for minValues, and the next type of a new value is.
    const unknown = plan(
      [
        ['t3a.medium', 0.017],
        ['x9.unknown', 0.02],
        ['m5.large', 0.0326],
      ],
      [{ key: LABEL_INSTANCE_FAMILY, operator: 'Exists', minValues: 2 }],
    );
    expect(names(withinPriceBand(unknown, 0, TYPES))).toEqual(['t3a.medium/spot', 'm5.large/spot']);
    const gpu = plan(options, [
      { key: 'karpenter.k8s.aws/instance-gpu-manufacturer', operator: 'Exists', minValues: 1 },
    ]);
    expect(names(withinPriceBand(gpu, 0, TYPES))).toEqual(['t3a.medium/spot']);
  });
});
