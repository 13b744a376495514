import { describe, expect, it } from 'vitest';
import type { Taint, Toleration } from '../../../shared/core/model/taints';
import {
  firstUntoleratedTaint,
  formatTaint,
  taintTolerated,
  toleratesTaint,
} from '../../../shared/core/model/taints';

const gpu: Taint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };
const dedicated: Taint = { key: 'dedicated', effect: 'NoExecute' };

describe('toleratesTaint', () => {
  it.each<[string, Toleration, Taint, boolean]>([
    ['Exists with an empty key tolerates everything', { operator: 'Exists' }, gpu, true],
    ['Exists with an empty key tolerates a NoExecute taint', { operator: 'Exists' }, dedicated, true],
    [
      'Exists with an empty key but an effect tolerates only that effect',
      { operator: 'Exists', effect: 'NoExecute' },
      gpu,
      false,
    ],
    ['Exists on the key ignores the value', { key: 'nvidia.com/gpu', operator: 'Exists' }, gpu, true],
    ['Exists on another key', { key: 'other', operator: 'Exists' }, gpu, false],
    ['Equal on key and value', { key: 'nvidia.com/gpu', operator: 'Equal', value: 'true' }, gpu, true],
    ['Equal with another value', { key: 'nvidia.com/gpu', operator: 'Equal', value: 'false' }, gpu, false],
    ['operator defaults to Equal', { key: 'nvidia.com/gpu', value: 'true' }, gpu, true],
    ['default Equal compares the value', { key: 'nvidia.com/gpu' }, gpu, false],
    ['Equal with no value matches a taint with no value', { key: 'dedicated' }, dedicated, true],
    [
      'Equal with an empty value matches a taint with no value',
      { key: 'dedicated', value: '' },
      dedicated,
      true,
    ],
    ['an empty effect matches every effect', { key: 'dedicated', operator: 'Exists' }, dedicated, true],
    ['the same effect', { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }, gpu, true],
    ['another effect', { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute' }, gpu, false],
    [
      'PreferNoSchedule does not cover NoSchedule',
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'PreferNoSchedule' },
      gpu,
      false,
    ],
  ])('%s → %s', (_, toleration, taint, expected) => {
    expect(toleratesTaint(toleration, taint)).toBe(expected);
  });

  it('tolerates nothing with an operator the API does not know', () => {
    // Deliberately invalid input from an unvalidated source.
    const bad = { key: 'nvidia.com/gpu', operator: 'Gt' } as unknown as Toleration;
    expect(toleratesTaint(bad, gpu)).toBe(false);
  });
});

describe('taintTolerated', () => {
  it('is true when any toleration matches', () => {
    expect(
      taintTolerated(
        [
          { key: 'x', operator: 'Exists' },
          { key: 'dedicated', operator: 'Exists' },
        ],
        dedicated,
      ),
    ).toBe(true);
    expect(taintTolerated([], dedicated)).toBe(false);
  });
});

describe('firstUntoleratedTaint', () => {
  const prefer: Taint = { key: 'spot', value: 'true', effect: 'PreferNoSchedule' };

  it('returns undefined on an untainted node', () => {
    expect(firstUntoleratedTaint([], [])).toBeUndefined();
  });

  it('never blocks on PreferNoSchedule', () => {
    expect(firstUntoleratedTaint([], [prefer])).toBeUndefined();
  });

  it('returns the first blocking taint in node order', () => {
    expect(firstUntoleratedTaint([], [prefer, gpu, dedicated])).toEqual(gpu);
    expect(
      firstUntoleratedTaint([{ key: 'nvidia.com/gpu', operator: 'Exists' }], [prefer, gpu, dedicated]),
    ).toEqual(dedicated);
  });

  it('blocks on NoExecute as well as NoSchedule', () => {
    expect(firstUntoleratedTaint([{ key: 'nvidia.com/gpu', operator: 'Exists' }], [dedicated])).toEqual(
      dedicated,
    );
  });

  it('lets a pod that tolerates every blocking taint through', () => {
    expect(
      firstUntoleratedTaint(
        [
          { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
          { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' },
        ],
        [prefer, gpu, dedicated],
      ),
    ).toBeUndefined();
  });
});

describe('formatTaint', () => {
  it.each<[Taint, string]>([
    [gpu, 'nvidia.com/gpu=true:NoSchedule'],
    [dedicated, 'dedicated:NoExecute'],
    [{ key: 'k', value: '', effect: 'PreferNoSchedule' }, 'k:PreferNoSchedule'],
  ])('%j → %s', (taint, expected) => {
    expect(formatTaint(taint)).toBe(expected);
  });
});
