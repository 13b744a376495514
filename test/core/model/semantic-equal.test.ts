import { describe, expect, it } from 'vitest';
import { semanticallyEqual } from '../../../shared/core/model/semantic-equal';

describe('semanticallyEqual', () => {
  it('ignores key order at every level, as a status read back from the API server has its keys sorted', () => {
    const written = { resources: { nodes: '1', cpu: '2' }, conditions: [{ type: 'Ready', status: 'True' }] };
    const read = { conditions: [{ status: 'True', type: 'Ready' }], resources: { cpu: '2', nodes: '1' } };
    expect(semanticallyEqual(written, read)).toBe(true);
  });

  it('treats a key holding undefined as absent', () => {
    expect(semanticallyEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(semanticallyEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(semanticallyEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
  });

  it('compares quantities by value inside resource maps only', () => {
    expect(semanticallyEqual({ resources: { cpu: '1' } }, { resources: { cpu: '1000m' } })).toBe(true);
    expect(semanticallyEqual({ capacity: { memory: '1Gi' } }, { capacity: { memory: '1073741824' } })).toBe(
      true,
    );
    expect(semanticallyEqual({ allocatable: { cpu: '1' } }, { allocatable: { cpu: '1001m' } })).toBe(false);
    expect(
      semanticallyEqual(
        { resources: { requests: { cpu: '2' } } },
        { resources: { requests: { cpu: '2000m' } } },
      ),
    ).toBe(true);
    // Elsewhere "1" and "1000m" are different strings (a label, a message).
    expect(semanticallyEqual({ message: '1' }, { message: '1000m' })).toBe(false);
    expect(semanticallyEqual({ resources: { note: 'x' } }, { resources: { note: 'y' } })).toBe(false);
  });

  it('tells changed values, lengths and shapes apart', () => {
    expect(semanticallyEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(semanticallyEqual({ a: [1] }, { a: [1, 1] })).toBe(false);
    expect(semanticallyEqual({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(semanticallyEqual({ a: { 0: 1 } }, { a: [1] })).toBe(false);
    expect(semanticallyEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(semanticallyEqual({ a: null }, { a: {} })).toBe(false);
    expect(semanticallyEqual({}, { a: 1 })).toBe(false);
    expect(semanticallyEqual('x', 'x')).toBe(true);
    expect(semanticallyEqual(1, '1')).toBe(false);
    // Arrays: every item in order; an object with an array's keys is not one.
    expect(semanticallyEqual({ a: [1, 2] }, { a: [1, 3] })).toBe(false);
    expect(semanticallyEqual({ a: [{ x: 1 }, { y: 2 }] }, { a: [{ x: 1 }, { y: 3 }] })).toBe(false);
    expect(semanticallyEqual({ a: { length: 1, 0: 1 } }, { a: [1] })).toBe(false);
    expect(semanticallyEqual({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
  });

  it('compares quantities by value in every resource map, and not inside arrays of them', () => {
    for (const field of ['resources', 'capacity', 'allocatable', 'requests', 'limits']) {
      expect(semanticallyEqual({ [field]: { cpu: '1' } }, { [field]: { cpu: '1000m' } })).toBe(true);
    }
    // A list under a quantity field holds objects, not quantities: compared as written.
    expect(semanticallyEqual({ requests: [{ cpu: '1' }] }, { requests: [{ cpu: '1000m' }] })).toBe(false);
    expect(semanticallyEqual({ limits: ['1'] }, { limits: ['1000m'] })).toBe(false);
  });
});
