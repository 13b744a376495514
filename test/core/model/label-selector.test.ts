import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../../../shared/core/model/label-selector';
import { labelSelectorMatches } from '../../../shared/core/model/label-selector';

describe('labelSelectorMatches', () => {
  const labels = { app: 'web', tier: 'frontend' };

  it.each<[string, LabelSelector | undefined, boolean]>([
    ['an absent selector matches nothing', undefined, false],
    ['an empty selector matches everything', {}, true],
    [
      'empty matchLabels and matchExpressions match everything',
      { matchLabels: {}, matchExpressions: [] },
      true,
    ],
    ['matchLabels equal', { matchLabels: { app: 'web' } }, true],
    ['matchLabels all of them', { matchLabels: { app: 'web', tier: 'frontend' } }, true],
    ['matchLabels different value', { matchLabels: { app: 'api' } }, false],
    ['matchLabels missing key', { matchLabels: { team: 'x' } }, false],
    [
      'In with the value',
      { matchExpressions: [{ key: 'app', operator: 'In', values: ['api', 'web'] }] },
      true,
    ],
    ['In without the value', { matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'team', operator: 'In', values: ['x'] }] }, false],
    [
      'NotIn without the value',
      { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['api'] }] },
      true,
    ],
    [
      'NotIn with the value',
      { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] },
      false,
    ],
    [
      'NotIn on a missing key',
      { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['x'] }] },
      true,
    ],
    ['Exists on a present key', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    ['Exists on a missing key', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, false],
    [
      'DoesNotExist on a missing key',
      { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] },
      true,
    ],
    [
      'DoesNotExist on a present key',
      { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] },
      false,
    ],
    [
      'matchLabels and matchExpressions are ANDed',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend'] }],
      },
      false,
    ],
    [
      'expressions are ANDed',
      {
        matchExpressions: [
          { key: 'app', operator: 'Exists' },
          { key: 'tier', operator: 'NotIn', values: ['backend'] },
        ],
      },
      true,
    ],
  ])('%s', (_, selector, expected) => {
    expect(labelSelectorMatches(selector, labels)).toBe(expected);
  });

  it('does not match inherited object properties as labels', () => {
    expect(
      labelSelectorMatches({ matchExpressions: [{ key: 'toString', operator: 'Exists' }] }, labels),
    ).toBe(false);
  });
});
