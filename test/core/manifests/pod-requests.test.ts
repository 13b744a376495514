import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectivePodRequests } from '../../../shared/core/manifests/pod-requests';

const GiB = 1024 ** 3;

describe('effectivePodRequests', () => {
  it('equals the peak of what runs at once over the pod lifetime', () => {
    // Independent model: phases in order, each with the set of containers running in it.
    const vec = fc.record({ cpu: fc.nat(4000), memory: fc.nat(8 * GiB) });
    const init = fc.record({ requests: vec, sidecar: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(vec, { minLength: 1, maxLength: 4 }),
        fc.array(init, { maxLength: 5 }),
        vec,
        (regular, inits, overhead) => {
          const phases: { cpu: number; memory: number }[][] = [];
          const running: { cpu: number; memory: number }[] = [];
          for (const c of inits) {
            phases.push([...running, c.requests]);
            if (c.sidecar) running.push(c.requests);
          }
          phases.push([...running, ...regular]);
          const peak = (k: 'cpu' | 'memory') =>
            Math.max(...phases.map((p) => p.reduce((s, c) => s + c[k], 0))) + overhead[k];
          const got = effectivePodRequests(
            regular.map((r) => ({ requests: r })),
            inits,
            overhead,
          );
          expect(got).toEqual({ cpu: peak('cpu'), memory: peak('memory'), pods: 1 });
        },
      ),
    );
  });
});
