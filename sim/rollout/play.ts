import type { RolloutBlock, RolloutClaim, RolloutInput, RolloutReport } from '../../cli/diff-rollout';
import { ANNOTATIONS, DISRUPTED_TAINT } from '../../shared/core/model/labels';
import { CLUSTER_WORLD_TYPES } from '../world/cluster-world';
import { Simulation } from '../world/simulation';
import { restoreNodePools, seedWorld, worldNodeClass, worldNodePool } from './seed';

// biome-ignore lint/suspicious/noExplicitAny: the API server's untyped JSON
type Json = Record<string, any>;

/** How long the world may take to come up before the change, virtual ms. */
const SEED_MS = 10 * 60_000;
/** The disruption function runs every minute: by then it has marked the drift it sees. */
const DRIFT_MARKED_WITHIN_MS = 75_000;

/**
 * Plays a drift rollout in the simulator: the cluster's state seeded into a world
 * ({@link seedWorld}), the world run until every NodeClaim is initialized and its pods run, then
 * the changed NodePools and EC2NodeClasses applied and the real handlers — provisioner,
 * disruption, termination, behind the real adapters — left to do what they do, under the
 * NodePools' disruption budgets, the PodDisruptionBudgets and the pods' do-not-disrupt, until
 * every drifted NodeClaim is gone and no pod waits, or `maxDurationMs` passes. It records when
 * each drifted NodeClaim was disrupted and gone, how many went at once, which pods left them,
 * what replaced them, and every DisruptionBlocked Event and PodDisruptionBudget refusal, with the
 * first and last time it was seen.
 *
 * A drift the world cannot see (one only EC2 knows of: AMI, subnet, security group — the world
 * resolves its own) is brought about by a stale NodePool hash on the claims the static analysis
 * found drifted: the disruption loop treats every drift reason alike.
 */
export async function playRollout(input: RolloutInput): Promise<RolloutReport> {
  const types = [...new Set([...CLUSTER_WORLD_TYPES, ...input.nodes.map((n) => n.instanceType)])];
  const sim = await Simulation.start({ instanceTypes: types });
  try {
    const world = await seedWorld(sim, input, SEED_MS);
    const store = sim.world.fakes.kube.store;
    const claimsUp = () =>
      input.nodes.every((n) =>
        (
          (store.find('nodeclaims.karpenter.sh', n.nodeClaim)?.status as Json | undefined)?.conditions ?? []
        ).some((c: Json) => c.type === 'Initialized' && c.status === 'True'),
      );
    const podsUp = () =>
      store.list('pods').items.every((p) => (p.status as Json | undefined)?.phase === 'Running');
    if (!(await sim.until(() => claimsUp() && podsUp(), SEED_MS)))
      world.notes.push('not every NodeClaim initialized, or not every pod ran, before the change');
    const start = sim.world.time.now();
    const since = () => sim.world.time.now() - start;
    const dollarsPerHourStart = sim.dollarsPerHour();
    const drifting = input.nodes.filter((n) => n.drifts);
    const claimOfNode = new Map(drifting.map((n) => [world.nodeOfClaim(n.nodeClaim) ?? '', n.nodeClaim]));
    const before = new Set(store.list('nodeclaims.karpenter.sh').items.map((c) => c.metadata.name ?? ''));

    const claims = new Map<string, { disruptedAtMs?: number; goneAtMs?: number }>(
      drifting.map((n) => [n.nodeClaim, {}]),
    );
    const podsMoved: { pod: string; from: string }[] = [];
    const blocks = new Map<string, { subject: string; why: string; firstAtMs: number; lastAtMs: number }>();
    const block = (subject: string, why: string) => {
      const key = `${subject}\u0000${why}`;
      const b = blocks.get(key);
      if (b) b.lastAtMs = since();
      else blocks.set(key, { subject, why, firstAtMs: since(), lastAtMs: since() });
    };
    const unsubscribe = store.subscribe((event) => {
      const o = event.object as Json;
      if (event.resource.plural === 'pods' && event.type === 'DELETED') {
        const claim = claimOfNode.get(o.spec?.nodeName ?? '');
        if (claim) podsMoved.push({ pod: `${o.metadata.namespace}/${o.metadata.name}`, from: claim });
      }
      if (event.resource.plural === 'events' && event.type !== 'DELETED') {
        const name = o.involvedObject?.name ?? o.regarding?.name;
        const kind = o.involvedObject?.kind ?? o.regarding?.kind;
        if (o.reason === 'DisruptionBlocked' && kind === 'NodeClaim' && claims.has(name))
          block(name, String(o.message ?? o.note ?? ''));
      }
    });
    let seenDecisions = sim.decisions.length;
    let maxConcurrent = 0;

    // The NodePools' own budgets back, then the change, as `kubectl apply` of the edited files would make it.
    restoreNodePools(sim, input, world.zoneOf);
    for (const changed of input.changed) {
      const kind = String(changed.kind);
      const resource = kind === 'NodePool' ? 'nodepools.karpenter.sh' : 'ec2nodeclasses.karpenter.k8s.aws';
      const object = kind === 'NodePool' ? worldNodePool(changed, world.zoneOf) : worldNodeClass(changed);
      const current = store.find(resource, String(object.metadata.name));
      if (current)
        store.update(resource, {
          ...object,
          metadata: {
            ...current.metadata,
            ...object.metadata,
            resourceVersion: current.metadata.resourceVersion,
          },
        });
      else store.create(resource, object);
    }
    // A drift the world cannot see by itself (what only EC2 resolves, or a node role the world
    // replaces with its own): once the disruption loop has had a run to mark drift, the drifted
    // claims it did not mark get a stale NodePool hash.
    let staleStamped = false;
    const stampUnseenDrift = () => {
      staleStamped = true;
      for (const n of drifting) {
        const claim = store.find('nodeclaims.karpenter.sh', n.nodeClaim);
        const conditions = ((claim?.status as Json | undefined)?.conditions ?? []) as Json[];
        if (!claim || claim.metadata.deletionTimestamp || conditions.some((c) => c.type === 'Drifted'))
          continue;
        world.notes.push(
          `NodeClaim ${n.nodeClaim}: its drift is one the simulated region cannot see; it was marked drifted by hand`,
        );
        store.update('nodeclaims.karpenter.sh', {
          ...claim,
          metadata: {
            ...claim.metadata,
            annotations: {
              ...(claim.metadata.annotations ?? {}),
              [ANNOTATIONS.nodePoolHash]: 'drifted-outside-the-world',
            },
          },
        });
      }
    };

    const done = () => {
      if (!staleStamped && since() >= DRIFT_MARKED_WITHIN_MS) stampUnseenDrift();
      for (const [name, state] of claims) {
        const claim = store.find('nodeclaims.karpenter.sh', name);
        const node = claim && world.nodeOfClaim(name);
        const nodeObject = node ? store.find('nodes', node) : undefined;
        const tainted = ((nodeObject?.spec as Json | undefined)?.taints ?? []).some(
          (t: Json) => t.key === DISRUPTED_TAINT.key,
        );
        if (state.disruptedAtMs === undefined && (!claim || claim.metadata.deletionTimestamp || tainted))
          state.disruptedAtMs = since();
        if (state.goneAtMs === undefined && !claim) state.goneAtMs = since();
      }
      const inFlight = [...claims.values()].filter(
        (s) => s.disruptedAtMs !== undefined && s.goneAtMs === undefined,
      ).length;
      maxConcurrent = Math.max(maxConcurrent, inFlight);
      for (const d of sim.decisions.slice(seenDecisions))
        if (d.kind === 'blocked')
          block(
            d.message.replace(/^eviction of (\S+).*$/, '$1'),
            'a PodDisruptionBudget refuses its eviction',
          );
      seenDecisions = sim.decisions.length;
      const pending = store
        .list('pods')
        .items.some((p) => (p.status as Json | undefined)?.phase === 'Pending');
      return [...claims.values()].every((s) => s.goneAtMs !== undefined) && !pending;
    };
    const finished = await sim.until(done, input.maxDurationMs);
    done();
    unsubscribe();
    const lastGone = Math.max(0, ...[...claims.values()].map((s) => s.goneAtMs ?? since()));
    const report: RolloutReport = {
      finished,
      durationMs: finished ? lastGone : since(),
      maxConcurrent,
      claims: drifting.map(
        (n): RolloutClaim => ({
          nodeClaim: n.nodeClaim,
          ...(n.node ? { node: n.node } : {}),
          ...claims.get(n.nodeClaim),
        }),
      ),
      replacements: store
        .list('nodeclaims.karpenter.sh')
        .items.filter((c) => !before.has(c.metadata.name ?? ''))
        .map((c) => ({
          nodeClaim: c.metadata.name ?? '',
          instanceType: c.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '',
          zone: c.metadata.labels?.['topology.kubernetes.io/zone'] ?? '',
          capacityType: c.metadata.labels?.['karpenter.sh/capacity-type'] ?? '',
        })),
      podsMoved,
      blocks: blockSpans([...blocks.values()], claims, since()),
      pendingAtEnd: store
        .list('pods')
        .items.filter((p) => (p.status as Json | undefined)?.phase === 'Pending').length,
      dollarsPerHourStart,
      dollarsPerHourEnd: sim.dollarsPerHour(),
      notes: world.notes,
    };
    return report;
  } finally {
    await sim.close();
  }
}

/**
 * Blocks as spans: a DisruptionBlocked Event is written again only when its message changes, so
 * a NodeClaim's block lasts until another block of it starts, it is disrupted, or the run ends.
 * A pod's refused eviction lasts as long as it was seen.
 */
function blockSpans(
  blocks: readonly RolloutBlock[],
  claims: ReadonlyMap<string, { disruptedAtMs?: number }>,
  end: number,
): RolloutBlock[] {
  const sorted = [...blocks].sort((a, b) => a.firstAtMs - b.firstAtMs);
  return sorted.map((b, i) => {
    const claim = claims.get(b.subject);
    if (!claim) return b;
    const next = sorted.slice(i + 1).find((o) => o.subject === b.subject && o.why !== b.why);
    const until = Math.min(next?.firstAtMs ?? end, claim.disruptedAtMs ?? end);
    return { ...b, lastAtMs: Math.max(b.lastAtMs, until) };
  });
}
