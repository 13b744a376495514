import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../shared/core/model/nodeclaim';
import type { TerminationInput } from '../../../shared/core/termination/actions';
import { decideTermination } from '../../../shared/core/termination/decide';
import {
  needsClaimedVolumes,
  pendingVolumeAttachments,
} from '../../../shared/core/termination/node-termination';
import {
  claim,
  cond,
  drainedClaim,
  input,
  instance,
  iso,
  kinds,
  marked,
  nodeEvent,
  T0,
  terminate,
  web,
} from './fixtures';

// kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go `awaitVolumeDetachment`,
// `pendingVolumeAttachments`, `filterVolumeAttachments`, cases after its suite_test.go.

describe('decideTermination: volume detachment (controller.go awaitVolumeDetachment)', () => {
  const attachment = (name: string, pv?: string, nodeName = 'n1') => ({
    name,
    nodeName,
    ...(pv ? { persistentVolumeName: pv } : {}),
  });
  const run = (over: Partial<TerminationInput>, claims = [drainedClaim()]) =>
    decideTermination(input({ nodeClaims: claims, nodes: [marked([])], instances: [instance()], ...over }));

  it('waits for the Node’s VolumeAttachments, saying which, before terminating the instance', () => {
    // suite_test "should wait for volume attachments"
    const actions = run({
      volumeAttachments: [attachment('va-1', 'pv-1'), attachment('va-2', 'pv-2', 'n2')],
    });
    expect(actions).toStrictEqual([
      nodeEvent('AwaitingVolumeDetachment', 'Normal', 'Awaiting deletion of bound volumeattachments (va-1)'),
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [
          {
            type: 'VolumesDetached',
            status: 'Unknown',
            reason: 'AwaitingVolumeDetachment',
            message: 'AwaitingVolumeDetachment',
          },
        ],
      },
    ]);
    const many = Array.from({ length: 7 }, (_, i) => attachment(`va-${i}`, `pv-${i}`));
    expect(run({ volumeAttachments: many })[0]).toStrictEqual(
      nodeEvent(
        'AwaitingVolumeDetachment',
        'Normal',
        'Awaiting deletion of bound volumeattachments (va-0, va-1, va-2, va-3, va-4 and 2 other(s))',
      ),
    );
  });

  it('does not wait for the volumes of pods the drain leaves, nor for inline volumes', () => {
    // suite_test "should only wait for volume attachments associated with drainable pods"
    const tolerant = web({
      tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }],
      volumeClaims: ['data'],
    });
    const actions = decideTermination(
      input({
        nodeClaims: [drainedClaim()],
        nodes: [marked([tolerant])],
        instances: [instance()],
        volumeAttachments: [attachment('va-1', 'pv-1'), attachment('va-inline')],
        claimedVolumes: new Map([['default/data', 'pv-1']]),
      }),
    );
    expect(actions).toStrictEqual([terminate]);
    expect(needsClaimedVolumes([marked([tolerant])], [attachment('va-1', 'pv-1')], T0)).toBe(true);
    expect(needsClaimedVolumes([marked([tolerant])], [attachment('va-1', 'pv-1', 'n2')], T0)).toBe(false);
    expect(
      needsClaimedVolumes([marked([web({ volumeClaims: ['data'] })])], [attachment('va-1', 'pv-1')], T0),
    ).toBe(false);
  });

  it('rewrites a VolumesDetached Unknown of another reason, keeps one already awaiting', () => {
    const other = { ...cond('VolumesDetached', 'Unknown'), reason: 'Other' };
    const awaiting = { ...cond('VolumesDetached', 'Unknown'), reason: 'AwaitingVolumeDetachment' };
    const step = (c: Condition) =>
      run({ volumeAttachments: [attachment('va-1', 'pv-1')] }, [
        claim({ deleting: T0, conditions: [cond('Drained'), c] }),
      ]);
    expect(kinds(step(other))).toStrictEqual(['record-event', 'set-conditions']);
    expect(kinds(step(awaiting))).toStrictEqual(['record-event']);
  });

  it('keeps the volumes of drainable pods pending, and all of them when the claims are unknown', () => {
    const tolerant = web({
      tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }],
      volumeClaims: ['data'],
    });
    const base = {
      ...input({ volumeAttachments: [attachment('va-1', 'pv-1')] }),
      claim: drainedClaim(),
      deadline: undefined,
    };
    const claimed = new Map([['default/data', 'pv-1']]);
    const names = (over: Partial<Parameters<typeof pendingVolumeAttachments>[0]>) =>
      pendingVolumeAttachments({ ...base, node: marked([]), ...over }).map((a) => a.name);
    expect(names({ node: marked([web({ volumeClaims: ['data'] })]), claimedVolumes: claimed })).toStrictEqual(
      ['va-1'],
    );
    expect(names({ node: marked([tolerant]) })).toStrictEqual(['va-1']);
    expect(names({ node: marked([tolerant]), claimedVolumes: claimed })).toStrictEqual([]);
    expect(names({ node: marked([tolerant]), claimedVolumes: new Map() })).toStrictEqual(['va-1']);
    expect(
      names({ node: marked([{ ...tolerant, volumeClaims: undefined }]), claimedVolumes: claimed }),
    ).toStrictEqual(['va-1']);
  });

  it('asks for the claims only for a node with attachments and a pod left on it that mounts one', () => {
    const tolerant = web({ tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }] });
    const here = [attachment('va-1', 'pv-1')];
    expect(needsClaimedVolumes([marked([web(), { ...tolerant, volumeClaims: ['data'] }])], here, T0)).toBe(
      true,
    );
    expect(needsClaimedVolumes([marked([tolerant])], here, T0)).toBe(false);
    expect(needsClaimedVolumes([marked([{ ...tolerant, volumeClaims: [] }])], here, T0)).toBe(false);
  });

  it('stops waiting once the terminationGracePeriod is over, marking VolumesDetached False', () => {
    // suite_test "should wait for volume attachments until the nodeclaim's termination grace period expires"
    const deadline = iso(T0 + 300_000).replace('.000Z', 'Z');
    const late = drainedClaim({ annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': deadline } });
    const at = (now: number) => run({ now, volumeAttachments: [attachment('va-1', 'pv-1')] }, [late]);
    expect(kinds(at(T0 + 300_000))).toStrictEqual(['record-event', 'record-event', 'set-conditions']);
    expect(at(T0 + 300_001).slice(1)).toStrictEqual([
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [
          {
            type: 'VolumesDetached',
            status: 'False',
            reason: 'TerminationGracePeriodElapsed',
            message: 'TerminationGracePeriodElapsed',
          },
        ],
      },
      terminate,
    ]);
  });
});
