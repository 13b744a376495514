import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { CloudInstance } from '../../../shared/core/ports/cloud';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import {
  decideTermination,
  LAUNCH_TTL_MS,
  ORPHAN_GRACE_MS,
  REGISTRATION_TTL_MS,
} from '../../../shared/core/termination/decide';
import { nodePool } from '../../../sim/world/builders';
import { claim, drainedClaim, input, instance, marked, node, T0, terminate, web } from './fixtures';

describe('decideTermination: the instance and the finalizers (lifecycle/controller.go finalize)', () => {
  it('terminates the instance once drained, waits while it shuts down, then lets the Node and NodeClaim go', () => {
    const drained = marked([web({ name: 'static', ownerKind: 'Node' })]);
    const deleting = drainedClaim();
    expect(
      decideTermination(input({ nodeClaims: [deleting], nodes: [drained], instances: [instance()] })),
    ).toStrictEqual([terminate]);
    expect(
      decideTermination(
        input({
          nodeClaims: [deleting],
          nodes: [drained],
          instances: [instance({ state: 'shutting-down' })],
        }),
      ),
    ).toStrictEqual([]);
    expect(
      decideTermination(input({ nodeClaims: [deleting], nodes: [drained], instances: [] })),
    ).toStrictEqual([{ kind: 'finish', nodeClaim: 'default-a', node: 'n1' }]);
  });

  it('terminates the instance of a NodeClaim whose Node is gone, then lets it go', () => {
    expect(
      decideTermination(input({ nodeClaims: [claim({ deleting: T0 })], instances: [instance()] })),
    ).toStrictEqual([terminate]);
    expect(decideTermination(input({ nodeClaims: [claim({ deleting: T0 })] }))).toStrictEqual([
      { kind: 'finish', nodeClaim: 'default-a' },
    ]);
  });

  it('lets a NodeClaim that never launched go at once, terminationGracePeriod or not', () => {
    const pool = { ...nodePool(), template: { ...nodePool().template, terminationGracePeriod: '5m' } };
    expect(
      decideTermination(input({ nodePools: [pool], nodeClaims: [claim({ launched: false, deleting: T0 })] })),
    ).toStrictEqual([{ kind: 'finish', nodeClaim: 'default-a' }]);
  });

  it('takes the terminationGracePeriod of the NodeClaim’s own NodePool, and none when that is gone', () => {
    const timed = (name: string) => ({
      ...nodePool({ name }),
      template: { ...nodePool().template, terminationGracePeriod: '5m' },
    });
    const kindsFor = (pools: NodePool[]) =>
      decideTermination(
        input({ nodePools: pools, nodeClaims: [claim({ deleting: T0 })], instances: [instance()] }),
      ).map((a) => a.kind);
    expect(kindsFor([timed('other'), nodePool()])).not.toContain('set-termination-time');
    expect(kindsFor([nodePool({ name: 'other' }), timed('default')])).toContain('set-termination-time');
    expect(kindsFor([])).toStrictEqual(['terminate-instance']);
  });
});

describe('decideTermination: garbage collection', () => {
  it('deletes a NodeClaim not launched within 5 minutes, and not before', () => {
    const unlaunched = claim({ launched: false });
    expect(decideTermination(input({ now: T0 + LAUNCH_TTL_MS, nodeClaims: [unlaunched] }))).toStrictEqual([]);
    expect(decideTermination(input({ now: T0 + LAUNCH_TTL_MS + 1, nodeClaims: [unlaunched] }))).toStrictEqual(
      [{ kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'not launched within 5 minutes' }],
    );
  });

  it('deletes a launched NodeClaim whose Node did not register within 15 minutes', () => {
    const over = decideTermination(
      input({ now: T0 + REGISTRATION_TTL_MS + 1, nodeClaims: [claim()], instances: [instance()] }),
    );
    expect(over).toStrictEqual([
      {
        kind: 'delete-nodeclaim',
        nodeClaim: 'default-a',
        reason: 'its Node did not register within 15 minutes',
      },
    ]);
    expect(
      decideTermination(
        input({ now: T0 + REGISTRATION_TTL_MS, nodeClaims: [claim()], instances: [instance()] }),
      ),
    ).toStrictEqual([]);
  });

  it('deletes the NodeClaim of a Node a user deleted', () => {
    expect(
      decideTermination(
        input({
          nodeClaims: [claim({ registered: true })],
          nodes: [node(undefined, { deleting: true })],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([
      { kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'its Node is being deleted' },
    ]);
  });

  it('deletes a Registered NodeClaim whose instance is gone unless its Node is still Ready', () => {
    // garbagecollection/controller.go Reconcile: Registered, not listed by the cloud provider,
    // and the Node missing or its Ready condition not True.
    const registered = claim({ registered: true });
    const gone = [{ kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'its instance is gone' }];
    const run = (nodes: StateNode[], instances: CloudInstance[] = []) =>
      decideTermination(input({ nodeClaims: [registered], nodes, instances }));
    expect(run([node(undefined, { ready: false })])).toStrictEqual(gone);
    expect(run([])).toStrictEqual(gone);
    expect(run([node()])).toStrictEqual([]);
    expect(run([node(undefined, { ready: false })], [instance({ state: 'shutting-down' })])).toStrictEqual(
      [],
    );
  });

  it('leaves a launched NodeClaim that has not registered to its registration timeout, instance or not', () => {
    expect(decideTermination(input({ now: T0 + REGISTRATION_TTL_MS, nodeClaims: [claim()] }))).toStrictEqual(
      [],
    );
  });

  it('times launch and registration in Karpenter’s minutes (liveness.go: 5 and 15)', () => {
    const at = (minutes: number, c: NodeClaim) =>
      decideTermination(input({ now: T0 + minutes * 60_000, nodeClaims: [c], instances: [instance()] }));
    expect(at(4.9, claim({ launched: false }))).toStrictEqual([]);
    expect(at(5.1, claim({ launched: false }))[0]).toMatchObject({ reason: 'not launched within 5 minutes' });
    expect(at(14.9, claim())).toStrictEqual([]);
    expect(at(15.1, claim())[0]).toMatchObject({ reason: 'its Node did not register within 15 minutes' });
  });

  it('terminates an instance of the cluster that no NodeClaim owns, after a grace period', () => {
    const orphan = instance({ id: 'i-0aaaaaaaaaaaaaaaa', nodeClaim: 'gone-x' });
    expect(decideTermination(input({ now: T0 + ORPHAN_GRACE_MS, instances: [orphan] }))).toStrictEqual([]);
    expect(decideTermination(input({ now: T0 + ORPHAN_GRACE_MS + 1, instances: [orphan] }))).toStrictEqual([
      { kind: 'terminate-instance', instanceId: 'i-0aaaaaaaaaaaaaaaa', reason: 'no NodeClaim owns it' },
    ]);
  });

  it('leaves an orphan instance already shutting down, or one whose launch time is unknown', () => {
    const now = T0 + 3_600_000;
    const orphan = (extra: Partial<CloudInstance>) => instance({ nodeClaim: 'gone-x', ...extra });
    expect(decideTermination(input({ now, instances: [orphan({ state: 'shutting-down' })] }))).toStrictEqual(
      [],
    );
    expect(decideTermination(input({ now, instances: [orphan({ launchTime: undefined })] }))).toStrictEqual(
      [],
    );
  });

  it('removes a podlift Node without a NodeClaim once its instance is gone or it is deleted, after 30 s', () => {
    const finish = [{ kind: 'finish', node: 'n1' }];
    // An instance launched a second ago: not yet an orphan to terminate itself.
    const fresh = instance({ launchTime: T0 + 59_000 });
    expect(decideTermination(input({ nodes: [node()], instances: [] }))).toStrictEqual(finish);
    expect(
      decideTermination(input({ nodes: [node(undefined, { deleting: true })], instances: [fresh] })),
    ).toStrictEqual(finish);
    expect(decideTermination(input({ nodes: [node()], instances: [fresh] }))).toStrictEqual([]);
    expect(
      decideTermination(input({ now: T0 + ORPHAN_GRACE_MS, nodes: [node()], instances: [] })),
    ).toStrictEqual([]);
    expect(
      decideTermination(input({ now: T0 + ORPHAN_GRACE_MS + 1, nodes: [node()], instances: [] })),
    ).toStrictEqual(finish);
    const foreign = { ...node(), nodePool: undefined };
    expect(decideTermination(input({ nodes: [foreign], instances: [] }))).toStrictEqual([]);
    const unlaunched = { ...node(), providerID: undefined };
    expect(decideTermination(input({ nodes: [unlaunched], instances: [] }))).toStrictEqual([]);
  });

  it('reads providerIDs that are not EC2’s as naming no instance', () => {
    const kind = 'kind://docker/kind/kind-worker';
    const foreign = { ...node(), providerID: kind };
    expect(decideTermination(input({ nodes: [foreign], instances: [] }))).toStrictEqual([]);
    const odd = { ...claim({ registered: true }), status: { ...claim().status, providerID: kind } };
    expect(() => decideTermination(input({ nodeClaims: [odd], nodes: [foreign] }))).not.toThrow();
  });
});
