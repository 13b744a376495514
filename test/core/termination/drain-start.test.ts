import { describe, expect, it } from 'vitest';
import { decideDrainStart, decideTermination } from '../../../shared/core/termination/decide';
import { nodePool } from '../../../sim/world/builders';
import {
  claim,
  cond,
  draining,
  failedDraining,
  input,
  instance,
  iso,
  kinds,
  marked,
  node,
  ref,
  T0,
  web,
} from './fixtures';

// The interruption function begins the drain of the NodeClaims it deletes, as Karpenter's
// termination controller does at once on the deletion (node/termination/controller.go finalize):
// the same first step decideTermination takes, without the steps only termination may take.

const NAMED = new Set(['default-a']);
const deleting = (extra: Parameters<typeof claim>[0] = {}) =>
  claim({ registered: true, deleting: T0, ...extra });

describe('decideDrainStart', () => {
  it('takes termination’s first step for a named NodeClaim being deleted: taint, evictions, Drained Unknown', () => {
    const state = input({ nodeClaims: [deleting()], nodes: [node([web(), web({ name: 'api' })])] });
    const actions = decideDrainStart(state, NAMED);
    expect(actions).toStrictEqual(decideTermination({ ...state, instances: [instance()] }));
    expect(actions).toStrictEqual([
      { kind: 'taint-node', node: 'n1' },
      { kind: 'evict', node: 'n1', pods: [ref('web'), ref('api')], reason: 'Forceful Termination' },
      failedDraining(2),
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [{ type: 'Drained', status: 'Unknown', reason: 'Draining', message: 'Draining' }],
      },
    ]);
  });

  it('does nothing for a NodeClaim not named, not being deleted, without a Node or without a provider ID', () => {
    const nodes = [node([web()])];
    expect(decideDrainStart(input({ nodeClaims: [deleting()], nodes }), new Set(['other']))).toStrictEqual(
      [],
    );
    expect(
      decideDrainStart(input({ nodeClaims: [claim({ registered: true })], nodes }), NAMED),
    ).toStrictEqual([]);
    expect(decideDrainStart(input({ nodeClaims: [deleting()], nodes: [] }), NAMED)).toStrictEqual([]);
    expect(
      decideDrainStart(input({ nodeClaims: [claim({ launched: false, deleting: T0 })], nodes }), NAMED),
    ).toStrictEqual([]);
  });

  it('leaves a drain that has begun to termination, whatever the Drained condition says', () => {
    const nodes = [marked([web()])];
    for (const conditions of [[draining(T0)], [cond('Drained')], [cond('Drained', 'False')]])
      expect(decideDrainStart(input({ nodeClaims: [deleting({ conditions })], nodes }), NAMED)).toStrictEqual(
        [],
      );
  });

  it('reads a NodeClaim without conditions as one whose drain has not begun, and a Node without a provider ID as no one’s', () => {
    const bare = { ...deleting(), status: { providerID: deleting().status.providerID } };
    const unregistered = { ...node([web({ name: 'other' })]), name: 'n0', providerID: undefined };
    const actions = decideDrainStart(
      input({ nodeClaims: [bare], nodes: [unregistered, node([web()])] }),
      NAMED,
    );
    expect(actions.filter((a) => a.kind === 'evict')).toStrictEqual([
      { kind: 'evict', node: 'n1', pods: [ref('web')], reason: 'Forceful Termination' },
    ]);
  });

  it('drains only the named NodeClaims of several', () => {
    const other = {
      ...deleting(),
      name: 'default-b',
      status: { ...deleting().status, providerID: 'aws:///us-east-1a/i-b' },
    };
    const otherNode = { ...node([web({ name: 'b' })]), name: 'n2', providerID: 'aws:///us-east-1a/i-b' };
    const actions = decideDrainStart(
      input({ nodeClaims: [other, deleting()], nodes: [otherNode, node([web()])] }),
      NAMED,
    );
    expect(actions.filter((a) => a.kind === 'evict')).toStrictEqual([
      { kind: 'evict', node: 'n1', pods: [ref('web')], reason: 'Forceful Termination' },
    ]);
    expect(actions.flatMap((a) => ('nodeClaim' in a ? [a.nodeClaim] : []))).toStrictEqual(['default-a']);
  });

  it('records the termination time of a NodeClaim with a terminationGracePeriod, as termination would', () => {
    const pool = { ...nodePool(), template: { ...nodePool().template, terminationGracePeriod: '5m' } };
    const state = input({ nodePools: [pool], nodeClaims: [deleting()], nodes: [node([web()])] });
    const actions = decideDrainStart(state, NAMED);
    expect(actions[0]).toStrictEqual({
      kind: 'set-termination-time',
      nodeClaim: 'default-a',
      at: iso(T0 + 300_000).replace('.000Z', 'Z'),
    });
    expect(actions).toStrictEqual(decideTermination({ ...state, instances: [instance()] }));
  });

  it('leaves a NodeClaim whose step deletes pods for its termination time to termination whole', () => {
    // A 10 s terminationGracePeriod, a pod that needs 30 s: termination deletes it at once (eviction.go
    // needsForceDelete), which only its identity may do.
    const pool = { ...nodePool(), template: { ...nodePool().template, terminationGracePeriod: '10s' } };
    const state = input({
      now: T0 + 1_000,
      nodePools: [pool],
      nodeClaims: [deleting()],
      nodes: [node([web({ terminationGracePeriodSeconds: 30 })])],
    });
    expect(kinds(decideTermination({ ...state, instances: [instance()] }))).toContain('delete-pods');
    expect(decideDrainStart(state, NAMED)).toStrictEqual([]);
  });
});
