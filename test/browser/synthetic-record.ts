import type { ClusterSample, DecisionEntry, SimulationRecord } from '../../sim/report/record';

/** Spot prices ($/h) of the types the synthetic demo launches. */
const PRICE: Readonly<Record<string, number>> = {
  'm5.large': 0.0396,
  'c5.xlarge': 0.068,
  'm5.xlarge': 0.0792,
};
const ALLOCATABLE: Readonly<Record<string, { cpu: number; memoryGi: number }>> = {
  'm5.large': { cpu: 1.93, memoryGi: 7.1 },
  'c5.xlarge': { cpu: 3.92, memoryGi: 6.4 },
  'm5.xlarge': { cpu: 3.92, memoryGi: 14.5 },
};

/**
 * A simulation record shaped like the built-in demo (inflate 0 → 4 → 10, a spot interruption,
 * a NodePool change that drifts the nodes, then 0), built here because the branch this check
 * was written on has no scenario player yet: 10 s samples over 20 minutes, with the decisions
 * in Karpenter's log style. Pods request 1 cpu and 1.5 GiB.
 */
export function syntheticDemoRecord(): SimulationRecord {
  const decisions: DecisionEntry[] = [];
  const samples: ClusterSample[] = [];
  const nodes: { name: string; type: string; readyAt: number; goneAt?: number }[] = [];
  const decide = (at: number, actor: string, kind: string, message: string, saved?: number) =>
    decisions.push({
      at,
      actor,
      kind,
      message,
      ...(saved !== undefined ? { savedDollarsPerHour: saved } : {}),
    });
  const launch = (at: number, name: string, type: string, zone: string) => {
    decide(at, 'provisioner', 'launched', `launched nodeclaim ${name} (${type}, ${zone}, spot)`);
    decide(at + 35_000, 'kubelet', 'registered', `registered node ${name} (${type})`);
    decide(at + 48_000, 'kubelet', 'initialized', `initialized node ${name}`);
    nodes.push({ name, type, readyAt: at + 48_000 });
  };
  const retire = (at: number, name: string, why: string, saved?: number) => {
    decide(at, 'disruption', why, `${why} node ${name}`, saved);
    decide(at + 5_000, 'termination', 'drained', `cordoned and drained node ${name}`);
    decide(at + 20_000, 'termination', 'terminated', `terminated instance of ${name}`);
    const node = nodes.find((n) => n.name === name);
    if (node) node.goneAt = at + 20_000;
  };

  decide(0, 'scenario', 'scaled', 'scaled deployment inflate to 4 replicas');
  launch(2_000, 'default-8x2kq', 'c5.xlarge', 'us-east-1a');
  decide(180_000, 'scenario', 'scaled', 'scaled deployment inflate to 10 replicas');
  launch(182_000, 'default-p4m7z', 'm5.xlarge', 'us-east-1b');
  launch(182_000, 'default-t9c2w', 'm5.large', 'us-east-1c');
  decide(360_000, 'ec2', 'interrupted', 'spot interruption warning for default-p4m7z (2 minutes)');
  decide(
    361_000,
    'interruption',
    'interrupted',
    'interruption received for default-p4m7z: replacing, then draining',
  );
  launch(361_000, 'default-r5v8n', 'm5.xlarge', 'us-east-1a');
  retire(412_000, 'default-p4m7z', 'interrupted');
  decide(600_000, 'scenario', 'changed', 'changed NodePool default: amiSelectorTerms alias al2023@latest');
  launch(640_000, 'default-d3h6j', 'c5.xlarge', 'us-east-1b');
  retire(700_000, 'default-8x2kq', 'drifted');
  decide(900_000, 'scenario', 'scaled', 'scaled deployment inflate to 0 replicas');
  retire(960_000, 'default-t9c2w', 'consolidated', PRICE['m5.large']);
  retire(990_000, 'default-r5v8n', 'consolidated', PRICE['m5.xlarge']);
  retire(1_020_000, 'default-d3h6j', 'consolidated', PRICE['c5.xlarge']);
  decisions.sort((a, b) => a.at - b.at);

  const replicas = (t: number) => (t < 180_000 ? 4 : t < 900_000 ? 10 : 0);
  const durationMs = 1_200_000;
  for (let at = 0; at <= durationMs; at += 10_000) {
    const present = nodes.filter(
      (n) => n.readyAt - 48_000 <= at && (n.goneAt === undefined || n.goneAt > at),
    );
    const ready = present.filter((n) => n.readyAt <= at);
    const nodesByType: Record<string, number> = {};
    for (const n of present) nodesByType[n.type] = (nodesByType[n.type] ?? 0) + 1;
    const cpu = ready.reduce((sum, n) => sum + (ALLOCATABLE[n.type]?.cpu ?? 0), 0);
    const memory = ready.reduce((sum, n) => sum + (ALLOCATABLE[n.type]?.memoryGi ?? 0), 0);
    const running = Math.min(replicas(at), Math.floor(cpu));
    samples.push({
      at,
      nodesByType,
      pendingPods: replicas(at) - running,
      runningPods: running,
      dollarsPerHour: present.reduce((sum, n) => sum + (PRICE[n.type] ?? 0), 0),
      cpuUtilisation: cpu > 0 ? running / cpu : 0,
      memoryUtilisation: memory > 0 ? (running * 1.5) / memory : 0,
    });
  }
  return {
    scenario: 'built-in demo (synthetic record)',
    durationMs,
    samples,
    decisions,
    timeToCapacityMs: [
      48_000, 49_000, 50_000, 51_000, 49_000, 50_000, 52_000, 50_000, 49_000, 51_000, 12_000, 14_000,
    ],
    interruptionsSurvived: 1,
    expectations: [
      { description: 'every pod runs within 2 minutes', held: true },
      { description: 'the interrupted node is replaced before the reclaim', held: true },
      { description: 'no nodes are left after scaling to 0', held: true, detail: '0 nodes at 20:00' },
    ],
  };
}
