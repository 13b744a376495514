import type { KubeObject } from '../fakes/kube';
import type { SimulationRecord } from '../report/record';
import type { Simulation } from '../world/simulation';
import { type Expectations, formatDuration } from './schema';

type Outcome = SimulationRecord['expectations'][number];
type Bound = { min?: number; max?: number };
type Within = (description: string, value: number, bound: Bound) => Outcome;

// biome-ignore lint/suspicious/noExplicitAny: expectations read the API server's untyped JSON
type Json = Record<string, any>;

/** Whether a pod is one `names` names: its own name, or a Deployment's (any of its pods). */
export function podNamed(pod: KubeObject, names: readonly string[]): boolean {
  const name = pod.metadata.name ?? '';
  return names.some((n) => name === n || name.startsWith(`${n}-`));
}

/** What a node must carry: its NodePool, instance type, zone and capacity type labels, where given. */
interface NodeSelector {
  readonly nodePool?: string;
  readonly instanceType?: string;
  readonly zone?: string;
  readonly capacityType?: string;
}

const SELECTOR_LABELS: Readonly<Record<keyof NodeSelector, string>> = {
  nodePool: 'karpenter.sh/nodepool',
  instanceType: 'node.kubernetes.io/instance-type',
  zone: 'topology.kubernetes.io/zone',
  capacityType: 'karpenter.sh/capacity-type',
};

function nodeLabelsMatch(labels: Readonly<Record<string, string>>, selector: NodeSelector): boolean {
  return (Object.keys(SELECTOR_LABELS) as (keyof NodeSelector)[]).every(
    (k) => selector[k] === undefined || labels[SELECTOR_LABELS[k]] === selector[k],
  );
}

const describeSelector = (selector: NodeSelector) =>
  Object.entries(selector)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

const list = (items: readonly string[], max = 5) =>
  items.length === 0
    ? 'none'
    : `${items.slice(0, max).join(', ')}${items.length > max ? ` (+${items.length - max})` : ''}`;

/**
 * The expectations about what the run recorded or left behind: pods still pending, nodes by
 * NodePool, type, zone and capacity type, where named pods were bound, do-not-disrupt pods podlift
 * evicted, NodeClaims not finalized in time, Events by reason, kind, object and message, and when
 * things happened.
 */
export function checkRecordedExpectations(expect: Expectations, sim: Simulation, within: Within): Outcome[] {
  const out: Outcome[] = [];
  const store = sim.world.fakes.kube.store;
  const { record } = sim;
  if (expect.pendingPods) {
    const { names, ...bound } = expect.pendingPods;
    const pending = store
      .list('pods')
      .items.filter(
        (p) => (p.status as Json | undefined)?.phase === 'Pending' && !p.metadata.deletionTimestamp,
      );
    const named = names ? pending.filter((p) => podNamed(p, names)) : pending;
    const outcome = within(`pods pending${names ? ` among ${names.join(', ')}` : ''}`, named.length, bound);
    out.push({ ...outcome, detail: `${outcome.detail}: ${list(named.map((p) => p.metadata.name ?? ''))}` });
  }
  for (const by of expect.nodesBy ?? []) {
    const { nodePool, instanceType, zone, capacityType, ...bound } = by;
    const selector = { nodePool, instanceType, zone, capacityType };
    const nodes = store
      .list('nodes')
      .items.filter(
        (n) => !n.metadata.deletionTimestamp && nodeLabelsMatch(n.metadata.labels ?? {}, selector),
      );
    const what = describeSelector(selector);
    out.push(within(`nodes${what ? ` with ${what}` : ''}`, nodes.length, bound));
  }
  for (const by of expect.bindings ?? []) {
    const { pods, nodePool, instanceType, zone, capacityType, ...bound } = by;
    const selector = { nodePool, instanceType, zone, capacityType };
    const found = record.bindings.filter(
      (b) =>
        podNamed({ metadata: { name: b.pod.split('/')[1] } }, pods) &&
        nodeLabelsMatch(b.nodeLabels, selector),
    );
    const what = describeSelector(selector);
    const outcome = within(
      `bindings of ${pods.join(', ')} to nodes${what ? ` with ${what}` : ''}`,
      found.length,
      bound,
    );
    out.push({
      ...outcome,
      detail: `${outcome.detail}: ${list(found.map((b) => `${b.pod} to ${b.node} at ${formatDuration(b.at)}`))}`,
    });
  }
  for (const by of expect.instances ?? []) {
    const { name, nodePool, impaired, ...bound } = by;
    const ec2 = sim.world.fakes.ec2;
    const tag = (i: { Tags?: { Key?: string; Value?: string }[] }, key: string) =>
      i.Tags?.find((t) => t.Key === key)?.Value;
    const found = ec2.listInstances().filter((i) => {
      const status = ec2.instanceChecks(i.InstanceId ?? '');
      return (
        ['pending', 'running'].includes(i.State?.Name ?? '') &&
        (name === undefined || tag(i, 'Name') === name) &&
        (nodePool === undefined || tag(i, 'karpenter.sh/nodepool') === nodePool) &&
        (impaired === undefined || status.instance === 'impaired' || status.system === 'impaired')
      );
    });
    const what = [
      name ? `named ${name}` : '',
      nodePool ? `of NodePool ${nodePool}` : '',
      impaired ? 'impaired' : '',
    ]
      .filter(Boolean)
      .join(', ');
    const outcome = within(`instances running${what ? ` (${what})` : ''}`, found.length, bound);
    out.push({ ...outcome, detail: `${outcome.detail}: ${list(found.map((i) => i.InstanceId ?? ''))}` });
  }
  if (expect.noDoNotDisruptEvicted) {
    const evicted = record.doNotDisruptRemovals.filter((r) => r.how === 'evicted');
    const deleted = record.doNotDisruptRemovals.filter((r) => r.how === 'deleted');
    out.push({
      description: 'no do-not-disrupt pod is evicted by podlift',
      held: evicted.length === 0,
      detail: `evicted: ${list(evicted.map((r) => `${r.pod} at ${formatDuration(r.at)}`))}; deleted after a grace period: ${list(deleted.map((r) => r.pod))}`,
    });
  }
  if (expect.nodeClaimsFinalizedWithin !== undefined) {
    const limit = expect.nodeClaimsFinalizedWithin;
    const deletions = [...record.nodeClaimDeletions.values()];
    const late = deletions.filter((d) => (d.finalizedAt ?? sim.elapsed) - d.deletedAt > limit);
    const slowest = Math.max(0, ...deletions.map((d) => (d.finalizedAt ?? sim.elapsed) - d.deletedAt));
    out.push({
      description: `every NodeClaim deleted is finalized within ${formatDuration(limit)}`,
      held: late.length === 0,
      detail:
        late.length === 0
          ? `${deletions.length} deleted, slowest ${formatDuration(Math.round(slowest / 1000) * 1000)}`
          : `late: ${list(late.map((d) => `${d.name} (deleted at ${formatDuration(d.deletedAt)}, ${d.finalizedAt === undefined ? 'still there' : `gone at ${formatDuration(d.finalizedAt)}`})`))}`,
    });
  }
  for (const e of expect.events ?? []) {
    const { reason, kind, name, message, ...bound } = e;
    const found = record.events.filter(
      (r) =>
        r.reason === reason &&
        (kind === undefined || r.kind === kind) &&
        (name === undefined || podNamed({ metadata: { name: r.name } }, [name])) &&
        (message === undefined || r.message.includes(message)),
    );
    const about = [
      kind ? ` on a ${kind}` : '',
      name ? ` of ${name}` : '',
      message ? ` saying "${message}"` : '',
    ].join('');
    const outcome = within(`Events ${reason}${about}`, found.length, bound);
    out.push({
      ...outcome,
      detail: `${outcome.detail}: ${list(found.map((f) => `${f.name} at ${formatDuration(f.at)}`))}`,
    });
  }
  for (const h of expect.happened ?? []) {
    const times = h.nodeClaimDeleted
      ? [...record.nodeClaimDeletions.values()].map((d) => d.deletedAt)
      : record.events
          .filter((r) => r.reason === h.event && (h.kind === undefined || r.kind === h.kind))
          .map((r) => r.at);
    const first = times.length === 0 ? undefined : Math.min(...times);
    const what = h.nodeClaimDeleted
      ? 'a NodeClaim deleted'
      : `Event ${h.event}${h.kind ? ` on a ${h.kind}` : ''}`;
    const held =
      first !== undefined &&
      (h.before === undefined || first <= h.before) &&
      (h.notBefore === undefined || first >= h.notBefore);
    const span = [
      h.notBefore !== undefined ? `not before ${formatDuration(h.notBefore)}` : '',
      h.before !== undefined ? `by ${formatDuration(h.before)}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    out.push({
      description: `${what} first ${span || 'at some point'}`,
      held,
      detail:
        first === undefined
          ? 'never happened'
          : `first at ${formatDuration(Math.round(first / 1000) * 1000)}`,
    });
  }
  return out;
}
