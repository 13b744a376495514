import fc from 'fast-check';
import { it } from 'vitest';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import { __test } from './scheduler.properties.test';
it('stats', () => {
  const samples = fc.sample(__test.scenario, { seed: 20_240_611, numRuns: 60 });
  let tb = 0, ts = 0; const agg = { pods: 0, placed: 0, claimed: 0, uns: 0, claims: 0 };
  const reasons = new Map<string, number>();
  for (const s of samples) {
    const t0 = performance.now(); const input = __test.buildInput(s); const t1 = performance.now(); const r = schedule(input); const t2 = performance.now();
    tb += t1 - t0; ts += t2 - t1;
    agg.pods += input.pods.length; agg.placed += r.placements.reduce((a, p) => a + p.pods.length, 0); agg.claimed += r.nodeClaims.reduce((a, c) => a + c.pods.length, 0); agg.uns += r.unschedulable.length; agg.claims += r.nodeClaims.length;
    for (const u of r.unschedulable) { const k = u.reason.replace(/pool-\d/g,'P').replace(/\d+/g,'N').slice(0,90); reasons.set(k, (reasons.get(k) ?? 0) + 1); }
  }
  console.log({ tb, ts, ...agg });
  console.log([...reasons].sort((a,b)=>b[1]-a[1]).slice(0,25));
});
