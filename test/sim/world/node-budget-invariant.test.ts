import { describe, expect, it } from 'vitest';
import { NodeBudgetInvariant } from '../../../sim/world/node-budget-invariant';

// biome-ignore lint/suspicious/noExplicitAny: the API server's untyped JSON, as the checker reads it
type Json = Record<string, any>;

const T = Date.parse('2026-11-28T12:00:00Z');

function nodePool(budgets: Json[], name = 'default'): Json {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          requirements: [],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        },
      },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '30s', budgets },
    },
  };
}

/** NodeClaim `name` of `pool`, initialized unless said; under `command` when given. */
function claim(
  name: string,
  options: { command?: { id: string; reason: string }; initialized?: boolean; pool?: string } = {},
): Json {
  const { command, initialized = true, pool = 'default' } = options;
  return {
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': pool },
      annotations: command ? { 'podlift.dev/disruption-command': JSON.stringify(command) } : {},
    },
    status: {
      providerID: `aws:///us-east-1a/i-${name}`,
      conditions: [{ type: 'Initialized', status: initialized ? 'True' : 'False' }],
    },
  };
}

const nodeOf = (c: Json): Json => ({
  metadata: { name: c.metadata.name },
  spec: { providerID: c.status.providerID },
});
const c1 = { id: 'c1', reason: 'Underutilized' };
const c2 = { id: 'c2', reason: 'Underutilized' };

/** Six nodes, the first `marked` under `command`. */
function six(marked: number, command = c1): Json[] {
  return Array.from({ length: 6 }, (_, i) => claim(`n${i}`, i < marked ? { command } : {}));
}

function check(invariant: NodeBudgetInvariant, claims: Json[], budgets: Json[], nodes = claims.map(nodeOf)) {
  return invariant.check({ nodeClaims: claims, nodes, nodePools: [nodePool(budgets)], now: T });
}

describe('NodeBudgetInvariant', () => {
  it('passes a command within the budget and names one over it', () => {
    expect(check(new NodeBudgetInvariant(), six(3), [{ nodes: '50%' }])).toStrictEqual([]);
    expect(check(new NodeBudgetInvariant(), six(4), [{ nodes: '50%' }])).toStrictEqual([
      'NodePool default: command c1 (Underutilized) leaves 4 node(s) under disruption commands at once, over its budget of 3 of 6 node(s)',
    ]);
  });

  it('counts the commands still running beside a new one', () => {
    const claims = [...six(3), claim('n6', { command: c2 })];
    // Seven nodes, 50 % rounds up to 4: c1's three and c2's one.
    expect(check(new NodeBudgetInvariant(), claims, [{ nodes: '50%' }])).toStrictEqual([]);
    expect(check(new NodeBudgetInvariant(), claims, [{ nodes: '3' }])).toHaveLength(2);
  });

  it('checks a command once, when it first appears', () => {
    const invariant = new NodeBudgetInvariant();
    expect(check(invariant, six(3), [{ nodes: '50%' }])).toStrictEqual([]);
    // Nodes gone since (an interruption): the command in flight is not judged again.
    expect(check(invariant, six(3).slice(0, 4), [{ nodes: '50%' }])).toStrictEqual([]);
    // A new command then sees them all.
    const next = [...six(3).slice(0, 4), claim('n9', { command: c2 })];
    expect(check(invariant, next, [{ nodes: '50%' }])).toHaveLength(1);
  });

  it("counts as the NodePool's nodes only initialized NodeClaims with a registered Node, as Karpenter", () => {
    const claims = [
      ...six(3),
      claim('booting', { initialized: false }),
      claim('unregistered'),
      claim('other', { pool: 'other' }),
    ];
    const nodes = claims.filter((c) => c.metadata.name !== 'unregistered').map(nodeOf);
    // 6 nodes: 50 % is 3. Counting the other three, 50 % of 9 would be 5 and allow 4.
    expect(
      check(new NodeBudgetInvariant(), [...claims, claim('n7', { command: c1 })], [{ nodes: '50%' }], nodes),
    ).toHaveLength(1);
  });

  it('holds a command to the budgets whose schedule is active', () => {
    const inactive = [{ nodes: '0', schedule: '0 9 * * *', duration: '1h' }];
    expect(check(new NodeBudgetInvariant(), six(2), inactive)).toStrictEqual([]);
    const active = [{ nodes: '0', schedule: '0 11 * * *', duration: '2h' }];
    expect(check(new NodeBudgetInvariant(), six(1), active)).toHaveLength(1);
  });

  it("holds each command to its reason's budgets", () => {
    const budgets = [{ nodes: '0', reasons: ['Drifted'] }, { nodes: '2' }];
    expect(check(new NodeBudgetInvariant(), six(2), budgets)).toStrictEqual([]);
    expect(check(new NodeBudgetInvariant(), six(1, { id: 'd', reason: 'Drifted' }), budgets)).toHaveLength(1);
  });
});
