import { configurationBound } from '../config-lp';
import { loadEnvironment } from '../environment';
import { workload } from '../workload';

const { env } = await loadEnvironment();
const onDemand = env.priced; // spot+od for now
for (const n of [500]) {
  const pods = workload('karpenter', n);
  const m = new Map<string, { cpu: number; memory: number; count: number }>();
  for (const p of pods) {
    const k = `${p.requests.cpu}|${p.requests.memory}`;
    const e = m.get(k) ?? { cpu: p.requests.cpu, memory: p.requests.memory, count: 0 };
    e.count++;
    m.set(k, e);
  }
  const b = await configurationBound(
    onDemand.map((t) => ({ name: t.name, cpu: t.cpu, memory: t.memory, pods: t.pods, price: t.price })),
    [...m.values()],
  );
  console.log(n, m.size, JSON.stringify({ ...b, mix: b.mix.slice(0, 5) }));
}
