import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LABEL_INSTANCE_TYPE, LABEL_ZONE, WELL_KNOWN_LABELS } from '../../../shared/core/model/labels';
import type { NodeSelectorRequirement, Operator } from '../../../shared/core/model/requirements';
import { OPERATORS, Requirement, Requirements } from '../../../shared/core/model/requirements';

const KEY = 'example.com/tier';

/** Values every property below is checked against: words, integers, and non-canonical integers. */
const DOMAIN = ['a', 'b', 'c', '-3', '-1', '0', '1', '2', '3', '5', '8', '10', '12', '03', 'x1'];

function admitted(r: Requirement): string[] {
  return DOMAIN.filter((v) => r.has(v));
}

describe('Requirement.of', () => {
  const cases: {
    operator: Operator;
    values?: string[];
    admits: string[];
    rejects: string[];
    absentLabelMatches: boolean;
  }[] = [
    {
      operator: 'In',
      values: ['a', 'b'],
      admits: ['a', 'b'],
      rejects: ['c', '1'],
      absentLabelMatches: false,
    },
    { operator: 'NotIn', values: ['a'], admits: ['b', 'c', '1'], rejects: ['a'], absentLabelMatches: true },
    { operator: 'Exists', admits: ['a', '1', ''], rejects: [], absentLabelMatches: false },
    { operator: 'DoesNotExist', admits: [], rejects: ['a', '1', ''], absentLabelMatches: true },
    {
      operator: 'Gt',
      values: ['3'],
      admits: ['4', '10', '5'],
      rejects: ['3', '2', '-1', 'a', '4.5'],
      absentLabelMatches: false,
    },
    {
      operator: 'Lt',
      values: ['3'],
      admits: ['2', '-5', '0'],
      rejects: ['3', '4', 'a'],
      absentLabelMatches: false,
    },
    {
      operator: 'Gte',
      values: ['3'],
      admits: ['3', '4', '100'],
      rejects: ['2', 'a'],
      absentLabelMatches: false,
    },
    {
      operator: 'Lte',
      values: ['3'],
      admits: ['3', '2', '-100'],
      rejects: ['4', 'a'],
      absentLabelMatches: false,
    },
  ];

  it.each(cases)('$operator $values admits $admits and rejects $rejects', (c) => {
    const r = Requirement.of(KEY, c.operator, c.values);
    for (const v of c.admits) expect(r.has(v), v).toBe(true);
    for (const v of c.rejects) expect(r.has(v), v).toBe(false);
    const reqs = Requirements.from([{ key: KEY, operator: c.operator, values: c.values }]);
    for (const v of c.admits) expect(reqs.matchesLabels({ [KEY]: v }), v).toBe(true);
    for (const v of c.rejects) expect(reqs.matchesLabels({ [KEY]: v }), v).toBe(false);
    expect(reqs.matchesLabels({ other: 'x' })).toBe(c.absentLabelMatches);
  });

  it('covers every operator in the table', () => {
    expect(new Set(cases.map((c) => c.operator))).toEqual(new Set(OPERATORS));
  });

  it.each([
    ['Gt', ['a']],
    ['Lt', []],
    ['Gte', ['1', '2']],
    ['Lte', ['1.5']],
  ] as const)('rejects %s with values %j', (operator, values) => {
    expect(() => Requirement.of(KEY, operator, values)).toThrow(RangeError);
  });

  it('reports the operator it would be written with', () => {
    expect(Requirement.of(KEY, 'In', ['a']).operator).toBe('In');
    expect(Requirement.of(KEY, 'NotIn', ['a']).operator).toBe('NotIn');
    expect(Requirement.of(KEY, 'Exists').operator).toBe('Exists');
    expect(Requirement.of(KEY, 'DoesNotExist').operator).toBe('DoesNotExist');
    expect(Requirement.of(KEY, 'Gt', ['1']).operator).toBe('Gt');
    expect(Requirement.of(KEY, 'Lt', ['1']).operator).toBe('Lt');
  });

  it('knows its single value only when there is exactly one', () => {
    expect(Requirement.of(KEY, 'In', ['a']).single).toBe('a');
    expect(Requirement.of(KEY, 'In', ['a', 'b']).single).toBeUndefined();
    expect(Requirement.of(KEY, 'NotIn', ['a']).single).toBeUndefined();
  });
});

describe('Requirement.intersection', () => {
  it.each<[string, NodeSelectorRequirement, NodeSelectorRequirement, string[]]>([
    [
      'In ∩ In',
      { key: KEY, operator: 'In', values: ['a', 'b'] },
      { key: KEY, operator: 'In', values: ['b', 'c'] },
      ['b'],
    ],
    [
      'In ∩ NotIn',
      { key: KEY, operator: 'In', values: ['a', 'b'] },
      { key: KEY, operator: 'NotIn', values: ['a'] },
      ['b'],
    ],
    [
      'In ∩ Gt',
      { key: KEY, operator: 'In', values: ['1', '5', 'a'] },
      { key: KEY, operator: 'Gt', values: ['2'] },
      ['5'],
    ],
    [
      'Gt ∩ Lt',
      { key: KEY, operator: 'Gt', values: ['1'] },
      { key: KEY, operator: 'Lt', values: ['5'] },
      ['2', '3', '03'],
    ],
    [
      'Gt ∩ Lt, empty',
      { key: KEY, operator: 'Gt', values: ['2'] },
      { key: KEY, operator: 'Lt', values: ['3'] },
      [],
    ],
    [
      'Gte ∩ Lte, one value',
      { key: KEY, operator: 'Gte', values: ['3'] },
      { key: KEY, operator: 'Lte', values: ['3'] },
      ['3', '03'],
    ],
    [
      'NotIn ∩ NotIn',
      { key: KEY, operator: 'NotIn', values: ['a'] },
      { key: KEY, operator: 'NotIn', values: ['b'] },
      DOMAIN.filter((v) => v !== 'a' && v !== 'b'),
    ],
    ['Exists ∩ DoesNotExist', { key: KEY, operator: 'Exists' }, { key: KEY, operator: 'DoesNotExist' }, []],
  ])('%s', (_, a, b, expected) => {
    const ra = Requirement.of(a.key, a.operator, a.values);
    const rb = Requirement.of(b.key, b.operator, b.values);
    expect(admitted(ra.intersection(rb))).toEqual(expected);
    expect(admitted(rb.intersection(ra))).toEqual(expected);
  });

  it('keeps the larger minValues', () => {
    const a = Requirement.of(KEY, 'In', ['a', 'b', 'c'], 2);
    const b = Requirement.of(KEY, 'Exists', [], 3);
    expect(a.intersection(b).minValues).toBe(3);
    expect(b.intersection(a).minValues).toBe(3);
  });
});

/** A random requirement on KEY over DOMAIN (Gt/Lt/Gte/Lte with a small integer). */
const requirementArb: fc.Arbitrary<Requirement> = fc.oneof(
  fc
    .tuple(fc.constantFrom<Operator>('In', 'NotIn'), fc.subarray(DOMAIN, { minLength: 1 }))
    .map(([op, values]) => Requirement.of(KEY, op, values)),
  fc.constantFrom<Operator>('Exists', 'DoesNotExist').map((op) => Requirement.of(KEY, op)),
  fc
    .tuple(fc.constantFrom<Operator>('Gt', 'Lt', 'Gte', 'Lte'), fc.integer({ min: -4, max: 13 }))
    .map(([op, n]) => Requirement.of(KEY, op, [String(n)])),
);

/** A requirement that may itself be an intersection of several, to reach mixed forms (NotIn ∩ Gt ∩ Lt). */
const composedArb = fc
  .array(requirementArb, { minLength: 1, maxLength: 3 })
  .map((rs) => rs.reduce((acc, r) => acc.intersection(r)));

describe('Requirement.intersection properties', () => {
  it('admits a value iff both sides admit it', () => {
    fc.assert(
      fc.property(composedArb, composedArb, (a, b) => {
        const both = a.intersection(b);
        for (const v of DOMAIN) expect(both.has(v), v).toBe(a.has(v) && b.has(v));
      }),
    );
  });

  it('is commutative in the values it admits', () => {
    fc.assert(
      fc.property(composedArb, composedArb, (a, b) => {
        expect(admitted(a.intersection(b))).toEqual(admitted(b.intersection(a)));
      }),
    );
  });

  it('is the identity with Exists', () => {
    const exists = Requirement.of(KEY, 'Exists');
    fc.assert(
      fc.property(composedArb, (a) => {
        expect(admitted(a.intersection(exists))).toEqual(admitted(a));
        expect(admitted(exists.intersection(a))).toEqual(admitted(a));
      }),
    );
  });

  it('survives a round trip through the API form', () => {
    fc.assert(
      fc.property(composedArb, (a) => {
        const back = Requirements.from(a.toSelectorRequirements()).get(KEY)!;
        expect(admitted(back)).toEqual(admitted(a));
      }),
    );
  });
});

describe('Requirements', () => {
  it('intersects repeated keys when built from API requirements', () => {
    const reqs = Requirements.from([
      { key: KEY, operator: 'In', values: ['a', 'b'] },
      { key: KEY, operator: 'NotIn', values: ['a'] },
    ]);
    expect(reqs.size).toBe(1);
    expect(reqs.get(KEY)!.single).toBe('b');
  });

  it('intersect combines keys of both sides', () => {
    const a = Requirements.from([{ key: KEY, operator: 'In', values: ['a', 'b'] }]);
    const b = Requirements.from([
      { key: KEY, operator: 'In', values: ['b'] },
      { key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] },
    ]);
    const both = a.intersect(b);
    expect([...both.keys()].sort()).toEqual([KEY, LABEL_ZONE].sort());
    expect(both.labels()).toEqual({ [KEY]: 'b', [LABEL_ZONE]: 'us-east-1a' });
    // Immutable: the inputs are unchanged.
    expect(a.get(KEY)!.has('a')).toBe(true);
    expect(a.has(LABEL_ZONE)).toBe(false);
  });

  it('fromLabels pins every label with In', () => {
    const reqs = Requirements.fromLabels({ a: '1', b: '2' });
    expect(reqs.toSelectorRequirements()).toEqual([
      { key: 'a', operator: 'In', values: ['1'] },
      { key: 'b', operator: 'In', values: ['2'] },
    ]);
  });

  it('labels() returns only keys with exactly one allowed value', () => {
    const reqs = Requirements.from([
      { key: 'one', operator: 'In', values: ['x'] },
      { key: 'two', operator: 'In', values: ['x', 'y'] },
      { key: 'not', operator: 'NotIn', values: ['x'] },
      { key: 'exists', operator: 'Exists' },
      { key: 'gt', operator: 'Gt', values: ['1'] },
    ]);
    expect(reqs.labels()).toEqual({ one: 'x' });
  });

  describe('matchesLabels', () => {
    const reqs = Requirements.from([
      { key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
      { key: 'gpu', operator: 'DoesNotExist' },
      { key: 'team', operator: 'NotIn', values: ['red'] },
      { key: 'cpu', operator: 'Gt', values: ['3'] },
    ]);

    it.each<[string, Record<string, string>, boolean]>([
      ['every requirement met', { [LABEL_ZONE]: 'us-east-1a', cpu: '4' }, true],
      ['NotIn met by another value', { [LABEL_ZONE]: 'us-east-1b', cpu: '8', team: 'blue' }, true],
      ['zone not allowed', { [LABEL_ZONE]: 'us-east-1c', cpu: '4' }, false],
      ['zone missing', { cpu: '4' }, false],
      ['DoesNotExist violated', { [LABEL_ZONE]: 'us-east-1a', cpu: '4', gpu: 'true' }, false],
      ['NotIn violated', { [LABEL_ZONE]: 'us-east-1a', cpu: '4', team: 'red' }, false],
      ['Gt violated', { [LABEL_ZONE]: 'us-east-1a', cpu: '3' }, false],
      ['Gt on a missing label', { [LABEL_ZONE]: 'us-east-1a' }, false],
    ])('%s → %s', (_, labels, expected) => {
      expect(reqs.matchesLabels(labels)).toBe(expected);
    });
  });

  describe('compatible', () => {
    const nodePool = Requirements.from([
      { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['m5.large', 'm5.xlarge'] },
      { key: 'team', operator: 'In', values: ['blue'] },
    ]);

    it.each<[string, NodeSelectorRequirement[], boolean]>([
      ['nothing required', [], true],
      [
        'a well-known label the pool leaves undefined',
        [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] }],
        true,
      ],
      ['a custom label the pool leaves undefined', [{ key: 'disk', operator: 'In', values: ['ssd'] }], false],
      ['a custom label with Exists', [{ key: 'disk', operator: 'Exists' }], false],
      ['a custom label with NotIn', [{ key: 'disk', operator: 'NotIn', values: ['hdd'] }], true],
      ['a custom label with DoesNotExist', [{ key: 'disk', operator: 'DoesNotExist' }], true],
      ['a defined label that intersects', [{ key: 'team', operator: 'In', values: ['blue', 'red'] }], true],
      ['a defined label that does not intersect', [{ key: 'team', operator: 'In', values: ['red'] }], false],
      [
        'a well-known label that does not intersect',
        [{ key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['c5.large'] }],
        false,
      ],
    ])('%s → compatible: %s', (_, incoming, ok) => {
      const why = nodePool.compatible(Requirements.from(incoming), WELL_KNOWN_LABELS);
      if (ok) expect(why).toBeUndefined();
      else expect(why).toEqual(expect.any(String));
    });

    it('names the label that has no known values', () => {
      const why = nodePool.compatible(
        Requirements.from([{ key: 'disk', operator: 'In', values: ['ssd'] }]),
        WELL_KNOWN_LABELS,
      );
      expect(why).toContain('disk');
    });
  });

  describe('intersects', () => {
    it('ignores keys defined on one side only', () => {
      const a = Requirements.from([{ key: 'a', operator: 'In', values: ['1'] }]);
      const b = Requirements.from([{ key: 'b', operator: 'In', values: ['2'] }]);
      expect(a.intersects(b)).toBeUndefined();
    });

    it('accepts two negative requirements even when nothing is left', () => {
      const a = Requirements.from([{ key: 'a', operator: 'DoesNotExist' }]);
      const b = Requirements.from([{ key: 'a', operator: 'NotIn', values: ['1'] }]);
      expect(a.intersects(b)).toBeUndefined();
    });

    it('rejects disjoint value sets and names the requirement', () => {
      const a = Requirements.from([{ key: 'a', operator: 'In', values: ['1'] }]);
      const b = Requirements.from([{ key: 'a', operator: 'In', values: ['2'] }]);
      expect(a.intersects(b)).toContain('a In [2]');
    });

    it('rejects In against DoesNotExist', () => {
      const a = Requirements.from([{ key: 'a', operator: 'DoesNotExist' }]);
      const b = Requirements.from([{ key: 'a', operator: 'In', values: ['2'] }]);
      expect(a.intersects(b)).toEqual(expect.any(String));
    });
  });

  describe('toSelectorRequirements', () => {
    it.each<NodeSelectorRequirement[]>([
      [{ key: KEY, operator: 'In', values: ['a', 'b'] }],
      [{ key: KEY, operator: 'NotIn', values: ['a'] }],
      [{ key: KEY, operator: 'Exists' }],
      [{ key: KEY, operator: 'DoesNotExist' }],
      [{ key: KEY, operator: 'Gt', values: ['3'] }],
      [{ key: KEY, operator: 'Lt', values: ['3'] }],
      [
        { key: KEY, operator: 'Gt', values: ['1'] },
        { key: KEY, operator: 'Lt', values: ['9'] },
      ],
      [
        { key: KEY, operator: 'NotIn', values: ['5'] },
        { key: KEY, operator: 'Gt', values: ['1'] },
      ],
      [{ key: KEY, operator: 'In', values: ['a', 'b', 'c'], minValues: 2 }],
    ])('round-trips %j', (...input) => {
      const once = Requirements.from(input).toSelectorRequirements();
      expect(Requirements.from(once).toSelectorRequirements()).toEqual(once);
      for (const v of DOMAIN) {
        expect(Requirements.from(once).matchesLabels({ [KEY]: v }), v).toBe(
          Requirements.from(input).matchesLabels({ [KEY]: v }),
        );
      }
    });

    it('writes Gte and Lte as the equivalent Gt and Lt', () => {
      expect(
        Requirements.from([
          { key: KEY, operator: 'Gte', values: ['3'] },
          { key: KEY, operator: 'Lte', values: ['7'] },
        ]).toSelectorRequirements(),
      ).toEqual([
        { key: KEY, operator: 'Gt', values: ['2'] },
        { key: KEY, operator: 'Lt', values: ['8'] },
      ]);
    });

    it('keeps excluded values next to integer bounds', () => {
      const reqs = Requirements.from([
        { key: KEY, operator: 'NotIn', values: ['5'] },
        { key: KEY, operator: 'Gt', values: ['1'] },
      ]);
      expect(reqs.toSelectorRequirements()).toEqual([
        { key: KEY, operator: 'NotIn', values: ['5'] },
        { key: KEY, operator: 'Gt', values: ['1'] },
      ]);
    });
  });
});
