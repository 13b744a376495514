import { describe, expect, it } from 'vitest';
import { contentKey } from '../../../shared/core/manifests/content-key';

describe('contentKey', () => {
  it('is equal for structurally identical plain data, whatever the object', () => {
    const a = { containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }], priority: 5 };
    const b = JSON.parse(JSON.stringify(a));
    expect(contentKey(a)).toBe(contentKey(b));
  });

  it('tells apart values that JSON.stringify folds together', () => {
    expect(contentKey({ priority: 1 })).not.toBe(contentKey({ priority: '1' }));
    expect(contentKey([1, 2])).not.toBe(contentKey([2, 1]));
    expect(contentKey({ a: 1, b: 2 })).not.toBe(contentKey({ b: 2, a: 1 }));
  });

  it('refuses what it cannot key exactly: non-finite numbers, -0, undefined, holes, class instances', () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, new Date(0), { a: undefined }])
      expect(contentKey(v)).toBeUndefined();
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is being refused
    expect(contentKey([1, , 3])).toBeUndefined();
    expect(contentKey(null)).toBe('null');
  });
});
