import type { LoggedLine } from '../fakes/ports/recording-observability';

/** A function's log line as the simulator's log shows it. */
export interface LineDecision {
  readonly kind: string;
  readonly message: string;
  readonly savedDollarsPerHour?: number;
  /** Nodes a voluntary disruption (consolidation, emptiness, drift) takes, for its decisions. */
  readonly disruptedNodes?: number;
}

// biome-ignore lint/suspicious/noExplicitAny: log fields are free-form JSON
type Fields = Record<string, any>;

const money = (n: unknown) => (typeof n === 'number' ? `$${n.toFixed(4)}/h` : '');
const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));

/**
 * Turns the functions' structured log lines into the Karpenter-style lines of the simulator's
 * log (the wording follows Karpenter's own messages: "created nodeclaim", "launched nodeclaim",
 * "registered nodeclaim", "initialized nodeclaim", "disrupting node(s)", "tainted node",
 * "deleted node"), and drops the per-run bookkeeping. Warnings keep their own text.
 */
export function decisionFromLine(line: LoggedLine): LineDecision | undefined {
  const f = line.fields as Fields;
  switch (line.message) {
    case 'created NodeClaim':
      return {
        kind: 'nodeclaim-created',
        message: `created NodeClaim ${f.nodeClaim ?? ''} for ${f.pods ?? '?'} pod(s) (NodePool ${f.nodePool ?? '?'})`,
      };
    case 'launched NodeClaim':
      return {
        kind: 'launched',
        message: `launched NodeClaim ${f.nodeClaim}: ${f.instanceType} in ${f.zone} (${f.capacityType}) ${money(f.price)} as ${f.instanceId}`,
      };
    case 'registered NodeClaim':
      return { kind: 'registered', message: `registered NodeClaim ${f.nodeClaim} as node ${f.node}` };
    case 'initialized NodeClaim':
      return { kind: 'initialized', message: `initialized NodeClaim ${f.nodeClaim} (node ${f.node})` };
    case 'interruption':
      return {
        kind: 'interrupted',
        message: `interruption received (${f.kind}) for NodeClaim ${f.nodeClaim}${f.node ? ` on ${f.node}` : ''}; ${f.replace ? 'replacing it' : 'no replacement'}`,
      };
    case 'deleted interrupted NodeClaim; termination drains it':
      return { kind: 'deleted', message: `deleted interrupted NodeClaim ${f.nodeClaim}` };
    case 'NodeClaim drifted':
      return {
        kind: 'drift-detected',
        message: `NodeClaim ${f.nodeClaim} drifted (${f.reason}${f.message ? `: ${f.message}` : ''})`,
      };
    case 'NodeClaim no longer drifted':
      return { kind: 'drift-cleared', message: `NodeClaim ${f.nodeClaim} no longer drifted` };
    case 'disruption command recorded; it runs after validation':
      return {
        kind: 'disruption-recorded',
        message: `${f.method} (${f.reason}) of ${list(f.candidates)} recorded; validating for 15s`,
      };
    case 'disrupting': {
      // Karpenter counts emptiness as a consolidation (disruption reason Empty).
      const kind = f.method === 'drift' ? 'drifted' : 'consolidated';
      const saved = typeof f.savings === 'number' && f.savings > 0 ? f.savings : undefined;
      return {
        kind,
        message: `disrupting via ${f.method} (${f.reason}) ${list(f.candidates)}${f.replace ? ' with a replacement' : ''}${saved ? `, saving ${money(saved)}` : ''}`,
        ...(saved ? { savedDollarsPerHour: saved } : {}),
        ...(Array.isArray(f.candidates) ? { disruptedNodes: f.candidates.length } : {}),
      };
    }
    case 'disruption command no longer holds; cancelled':
      return {
        kind: 'cancelled',
        message: `disruption ${f.id} (${f.method}) cancelled: it no longer holds`,
      };
    case 'NodeClaim expired; deleting it':
      return { kind: 'expired', message: `NodeClaim ${f.nodeClaim} expired` };
    case 'tainted Node for termination':
      return { kind: 'cordoned', message: `cordoned node ${f.node} (karpenter.sh/disrupted:NoSchedule)` };
    case 'draining Node':
      return f.evicted > 0 || f.blocked > 0
        ? { kind: 'drained', message: `draining node ${f.node}: evicted ${f.evicted}, blocked ${f.blocked}` }
        : undefined;
    case 'terminating instance':
      return {
        kind: 'terminating',
        message:
          f.nodeClaim === undefined && f.node === undefined
            ? `terminating instance ${f.instanceId ?? ''}: ${f.reason ?? 'no NodeClaim owns it'}`
            : `terminating instance ${f.instanceId ?? ''} of NodeClaim ${f.nodeClaim ?? f.node}`,
      };
    case 'terminated':
      return {
        kind: 'terminated',
        message: `terminated NodeClaim ${f.nodeClaim ?? ''}${f.node ? ` (node ${f.node})` : ''}`,
      };
    case 'deleting NodeClaim':
      return { kind: 'deleting', message: `deleting NodeClaim ${f.nodeClaim} (${f.reason})` };
    case 'terminationGracePeriod is over: deleted the pods left on the Node':
      return {
        kind: 'forced',
        message: `terminationGracePeriod over on ${f.node}: deleted ${f.pods ?? 'its'} pods`,
      };
    case 'eviction blocked by a PodDisruptionBudget; trying again next run':
      return { kind: 'blocked', message: `eviction of ${f.pod ?? 'a pod'} blocked by a PodDisruptionBudget` };
  }
  if (line.level === 'info') return undefined;
  return {
    kind: line.level,
    message: `${line.message}${f.error ? `: ${f.error}` : f.why ? `: ${f.why}` : ''}`,
  };
}
