import { beforeAll, describe, expect, it } from 'vitest';
import type { BinType, PodClass } from '../../../shared/core/bound/bins';
import { configurationBound, undominated } from '../../../shared/core/bound/config-lp';
import type { LpSolver } from '../../../shared/core/ports/lp-solver';
import { loadHighsSolver } from '../../../shared/runtime/highs-solver';

let solver: LpSolver;
beforeAll(async () => {
  solver = await loadHighsSolver();
});

const GI = 2 ** 30;

function bin(name: string, cpu: number, memoryGi: number, pods: number, price: number): BinType {
  return { name, cpu, memory: memoryGi * GI, pods, price };
}

function pods(cpu: number, memoryGi: number, count: number): PodClass {
  return { cpu, memory: memoryGi * GI, count };
}

describe('configurationBound', () => {
  it('equals the cost of nodes the pods fill exactly', () => {
    const b = configurationBound(solver, [bin('a', 4000, 8, 110, 1)], [pods(1000, 2, 8)]);
    expect(b.cost).toBeCloseTo(2, 5);
    expect(b.cost).toBeLessThanOrEqual(b.master + 1e-9);
  });

  it('knows a pod cannot be split across nodes, unlike a cpu + memory bound', () => {
    // 1.5 cpu pods on 2-cpu nodes: one pod per node, 3 nodes, where cpu alone says 2.25.
    const b = configurationBound(solver, [bin('a', 2000, 4, 110, 1)], [pods(1500, 1, 3)]);
    expect(b.cost).toBeCloseTo(3, 5);
  });

  it('stops when asked to with a bound that still holds, and says it timed out', () => {
    // One class fills a node's cpu, the other its memory: only a mixed column (found in round 2) meets the optimum.
    const types = [bin('a', 4000, 4, 110, 1)];
    const classes = [pods(3000, 1, 5), pods(1000, 3, 5)];
    const full = configurationBound(solver, types, classes);
    expect(full.timedOut).toBe(false);
    expect(full.cost).toBeCloseTo(5, 5);
    const capped = configurationBound(solver, types, classes, { shouldStop: () => true });
    expect(capped.timedOut).toBe(true);
    expect(capped.rounds).toBe(1);
    expect(capped.cost).toBeLessThanOrEqual(full.cost + 1e-9);
    expect(capped.master).toBeGreaterThan(full.master);
  });

  it('counts max pods per node', () => {
    const b = configurationBound(solver, [bin('a', 8000, 32, 2, 1)], [pods(100, 0.1, 10)]);
    expect(b.cost).toBeCloseTo(5, 5);
  });

  it('gives pods that repel each other by hostname a node each', () => {
    // 4 × 500m/1Gi: without the rule two small nodes ($0.6, 1 cpu/2Gi) hold two each ($1.2);
    // with one pod per node it takes 4 small nodes ($2.4), the big node being dearer per node.
    const types = [bin('small', 1000, 2, 110, 0.6), bin('big', 4000, 8, 110, 2)];
    const packed = configurationBound(solver, types, [pods(500, 1, 4)]);
    expect(packed.cost).toBeCloseTo(1.2, 5);
    const apart = configurationBound(solver, types, [{ ...pods(500, 1, 4), apart: 'web' }]);
    expect(apart.cost).toBeCloseTo(2.4, 5);
    // Other pods still share those nodes: 4 more 500m pods ride along for nothing.
    const shared = configurationBound(solver, types, [{ ...pods(500, 1, 4), apart: 'web' }, pods(500, 1, 4)]);
    expect(shared.cost).toBeCloseTo(2.4, 5);
    // Apart pods of two sizes still take a node each: 2 + 2 pods, 4 small nodes.
    const sizes = configurationBound(solver, types, [
      { ...pods(500, 1, 2), apart: 'web' },
      { ...pods(250, 0.5, 2), apart: 'web' },
    ]);
    expect(sizes.cost).toBeCloseTo(2.4, 5);
    // and the master LP's columns are real packings: none puts two of them on one node
    expect(sizes.master).toBeGreaterThanOrEqual(2.4 - 1e-6);
  });

  it('finds the mix of two types for two classes', () => {
    // 4 × 1 cpu/1Gi fit 2 per small node ($1); 2 × 1 cpu/4Gi fit only the big node, 2 per node ($1.5).
    // Optimum 2 small + 1 big = $3.5; a big node also holds 2 small pods, which never helps.
    const b = configurationBound(
      solver,
      [bin('small', 2000, 2, 110, 1), bin('big', 2000, 8, 110, 1.5)],
      [pods(1000, 1, 4), pods(1000, 4, 2)],
    );
    expect(b.cost).toBeCloseTo(3.5, 5);
    expect(b.mix.map((m) => m.name).sort()).toEqual(['big', 'small']);
  });

  it('finds packings that mix classes, beyond the single-class columns it starts from', () => {
    // Alone, 1-cpu pods fill a node two at a time and 1.5Gi pods one at a time ($3 in all);
    // one of each per node needs only 2 nodes, and no plan does with fewer (one 1.5Gi pod per node).
    const b = configurationBound(
      solver,
      [bin('a', 2000, 2, 110, 1)],
      [pods(1000, 0.25, 2), pods(100, 1.5, 2)],
    );
    expect(b.cost).toBeCloseTo(2, 5);
    expect(b.rounds).toBeGreaterThan(1);
  });

  it('takes fractional nodes where the LP may, staying below every integral plan', () => {
    // 3 pods of 1 cpu on 2-cpu nodes: the LP uses 1.5 nodes, any plan 2.
    const b = configurationBound(solver, [bin('a', 2000, 4, 110, 1)], [pods(1000, 1, 3)]);
    expect(b.cost).toBeCloseTo(1.5, 5);
  });

  it('rejects a pod class no type can hold', () => {
    expect(() => configurationBound(solver, [bin('a', 2000, 4, 110, 1)], [pods(4000, 1, 1)])).toThrow(
      /fits no instance type/,
    );
  });
});

describe('undominated', () => {
  it('drops a type another has at least as much room as for no more money', () => {
    const kept = undominated([
      bin('cheap-big', 4000, 8, 110, 1),
      bin('dear-small', 2000, 4, 110, 2),
      bin('x', 8000, 2, 110, 2),
    ]);
    expect(kept.map((t) => t.name)).toEqual(['cheap-big', 'x']);
  });
});
