import { describe, expect, it } from 'vitest';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  PatchError,
} from '../../../../sim/fakes/kube/patch';

describe('JSON patch (RFC 6902)', () => {
  const doc = { a: { 'b/c': 1, list: [1, 2] }, keep: true };

  it('applies add, remove, replace, move and copy with pointer escapes and array indices', () => {
    const result = applyJsonPatch(doc, [
      { op: 'add', path: '/a/list/-', value: 3 },
      { op: 'add', path: '/a/list/0', value: 0 },
      { op: 'replace', path: '/a/b~1c', value: 2 },
      { op: 'copy', from: '/a/list', path: '/copied' },
      { op: 'move', from: '/keep', path: '/moved' },
      { op: 'remove', path: '/a/list/1' },
      { op: 'test', path: '/copied', value: [0, 1, 2, 3] },
    ]);
    expect(result).toEqual({ a: { 'b/c': 2, list: [0, 2, 3] }, copied: [0, 1, 2, 3], moved: true });
    expect(doc).toEqual({ a: { 'b/c': 1, list: [1, 2] }, keep: true });
  });

  it('distinguishes a failed test or missing path (not malformed) from a malformed patch', () => {
    const failure = (patch: unknown) => {
      try {
        applyJsonPatch(doc, patch);
      } catch (error) {
        return error instanceof PatchError ? { malformed: error.malformed, message: error.message } : error;
      }
      return undefined;
    };
    expect(failure([{ op: 'test', path: '/keep', value: false }])).toEqual({
      malformed: false,
      message: 'testing value /keep failed: test failed',
    });
    expect(failure([{ op: 'remove', path: '/nope' }])).toMatchObject({ malformed: false });
    expect(failure([{ op: 'add', path: '/x/y', value: 1 }])).toMatchObject({ malformed: false });
    expect(failure({ op: 'add' })).toMatchObject({ malformed: true });
    expect(failure([{ op: 'frobnicate', path: '/keep' }])).toMatchObject({ malformed: true });
  });
});

describe('merge patches', () => {
  it('merges objects, deletes nulls and replaces lists (RFC 7386)', () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({
      a: { c: 2, d: 3 },
      l: [3],
    });
  });

  it('strategic merge merges conditions by type and deletes finalizers by directive', () => {
    const current = {
      metadata: { finalizers: ['a', 'b'] },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Launched', status: 'True' },
        ],
      },
    };
    const patched = applyStrategicMergePatch(current, {
      metadata: { $deleteFromPrimitiveList: undefined, '$deleteFromPrimitiveList/finalizers': ['a'] },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Launched', $patch: 'delete' },
        ],
      },
    });
    expect(patched).toEqual({
      metadata: { finalizers: ['b'] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
  });
});
