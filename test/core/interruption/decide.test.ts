import { describe, expect, it } from 'vitest';
import {
  claimsByInstance,
  decideInterruption,
  INTERRUPTION_EVENTS,
  type InterruptionDecision,
} from '../../../shared/core/interruption/decide';
import type { InterruptionMessage } from '../../../shared/core/interruption/messages';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../../../shared/core/model/labels';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import { nodeClaim } from '../../../sim/world/builders';

// Cases follow aws/karpenter-provider-aws pkg/controllers/interruption/suite_test.go
// ("Processing Messages") and utils.go (handleNodeClaim, actionForMessage,
// markUnavailableOfferings, notifyForMessage, deleteNodeClaim).

const NOW = Date.parse('2026-11-27T08:00:00Z');
const ID = 'i-0123456789abcdef0';

/** A launched NodeClaim on instance `instanceId`, with its Node joined, labelled as launched. */
function launched(
  capacityType: string | undefined,
  options: {
    instanceId?: string;
    name?: string;
    node?: string | null;
    deleting?: boolean;
    labels?: object;
  } = {},
): NodeClaim {
  const instanceId = options.instanceId ?? ID;
  const name = options.name ?? 'default-x7k2';
  const labels: Record<string, string> = {
    [LABEL_INSTANCE_TYPE]: 't3.large',
    [LABEL_ZONE]: 'test-zone-1a',
    ...(capacityType ? { [LABEL_CAPACITY_TYPE]: capacityType } : {}),
    ...options.labels,
  };
  return nodeClaim({
    name,
    labels,
    ...(options.deleting ? { deletionTimestamp: '2026-11-27T07:59:00Z' } : {}),
    status: {
      providerID: `aws:///test-zone-1a/${instanceId}`,
      ...(options.node === null ? {} : { nodeName: options.node ?? `ip-${name}` }),
    },
  });
}

const message = (kind: Exclude<InterruptionMessage['kind'], 'unknown' | 'no-action'>, ids = [ID]) =>
  ({ kind, id: 'evt', instanceIds: ids }) as InterruptionMessage;

const decide = (
  msg: InterruptionMessage,
  claims: readonly NodeClaim[],
  rebalance: 'event' | 'replace' = 'event',
): InterruptionDecision[] => decideInterruption(msg, claimsByInstance(claims), rebalance, NOW);

const cordon = (kind: string) => ({
  annotation: JSON.stringify({ kind, time: '2026-11-27T08:00:00.000Z' }),
});

describe('claimsByInstance', () => {
  it('keys launched NodeClaims by the instance id of their providerID and leaves the others out', () => {
    const a = launched('spot', { instanceId: 'i-0aaa', name: 'a' });
    const b = launched('spot', { instanceId: 'i-0bbb', name: 'b' });
    const notLaunched = nodeClaim({ name: 'c' });
    const foreign = nodeClaim({ name: 'd', status: { providerID: 'kind://docker/node-1' } });
    const byInstance = claimsByInstance([a, notLaunched, b, foreign]);
    expect([...byInstance.entries()]).toStrictEqual([
      ['i-0aaa', a],
      ['i-0bbb', b],
    ]);
  });
});

describe('decideInterruption: what Karpenter cordons and drains (actionForMessage CordonAndDrain)', () => {
  // suite_test.go "should mark the ICE cache for the offering when getting a spot interruption
  // warning"; utils.go markUnavailableOfferings marks karpv1.CapacityTypeSpot whatever the claim's
  // own capacity-type label, never the claim's own offering.
  it.each([
    ['spot', 'spot'],
    ['on-demand', 'on-demand'],
    ['reserved', 'reserved'],
    ['no capacity-type label', undefined],
  ])(
    'deletes, cordons and replaces on a spot warning, marking the spot offering of its type and zone (claim: %s)',
    (_, ct) => {
      expect(decide(message('spot-interruption'), [launched(ct)])).toStrictEqual([
        {
          nodeClaim: 'default-x7k2',
          node: 'ip-default-x7k2',
          unavailable: { instanceType: 't3.large', zone: 'test-zone-1a', capacityType: 'spot' },
          event: INTERRUPTION_EVENTS['spot-interruption'],
          replace: true,
          deleteNodeClaim: true,
          cordon: cordon('spot-interruption'),
        },
      ]);
    },
  );

  it.each([
    ['zone', LABEL_ZONE],
    ['instance type', LABEL_INSTANCE_TYPE],
  ])(
    'marks nothing when the spot NodeClaim has no %s label (markUnavailableOfferings needs both)',
    (_, key) => {
      const claim = launched('spot');
      const unlabelled = {
        ...claim,
        labels: Object.fromEntries(Object.entries(claim.labels).filter(([k]) => k !== key)),
      };
      const [d] = decide(message('spot-interruption'), [unlabelled]);
      expect(d?.unavailable).toBeUndefined();
      expect(d?.deleteNodeClaim).toBe(true);
    },
  );

  it("deletes on a capacity-reservation warning and marks the reservation's offering unavailable", () => {
    // suite_test.go "should delete the NodeClaim when receiving a capacity reservation interruption warning";
    // utils.go markUnavailableOfferings: capacityReservationProvider.MarkUnavailable(reservation id).
    const claim = launched('reserved', {
      labels: { 'karpenter.k8s.aws/capacity-reservation-id': 'cr-56fac701cc1951b03' },
    });
    const [d] = decide(message('capacity-reservation-interruption'), [claim]);
    expect(d).toStrictEqual({
      nodeClaim: 'default-x7k2',
      node: 'ip-default-x7k2',
      unavailable: {
        instanceType: claim.labels[LABEL_INSTANCE_TYPE],
        zone: claim.labels[LABEL_ZONE],
        capacityType: 'reserved',
      },
      event: INTERRUPTION_EVENTS['capacity-reservation-interruption'],
      replace: true,
      deleteNodeClaim: true,
      cordon: cordon('capacity-reservation-interruption'),
    });
    // A NodeClaim in no reservation has nothing to mark.
    const [plain] = decide(message('capacity-reservation-interruption'), [launched('on-demand')]);
    expect(plain?.unavailable).toBeUndefined();
    // Nor one whose offering cannot be named (no instance type or no zone label).
    for (const missing of [LABEL_INSTANCE_TYPE, LABEL_ZONE]) {
      const unnamed = launched('reserved', {
        labels: { 'karpenter.k8s.aws/capacity-reservation-id': 'cr-56fac701cc1951b03', [missing]: '' },
      });
      expect(decide(message('capacity-reservation-interruption'), [unnamed])[0]?.unavailable).toBeUndefined();
    }
    // Only that warning marks a reservation: other kinds naming the same NodeClaim mark nothing.
    for (const kind of ['scheduled-change', 'instance-stopped', 'rebalance-recommendation'] as const)
      expect(decide(message(kind), [claim], 'replace')[0]?.unavailable).toBeUndefined();
  });

  it('deletes, cordons and replaces on a scheduled change, marking nothing', () => {
    // suite_test.go "should delete the NodeClaim when receiving a scheduled change message"
    expect(decide(message('scheduled-change'), [launched('spot')])).toStrictEqual([
      {
        nodeClaim: 'default-x7k2',
        node: 'ip-default-x7k2',
        event: INTERRUPTION_EVENTS['scheduled-change'],
        replace: true,
        deleteNodeClaim: true,
        cordon: cordon('scheduled-change'),
      },
    ]);
  });

  it.each(['instance-stopped', 'instance-terminated'] as const)(
    'only deletes on a state change (%s): no cordon, no replacement run, no mark',
    (kind) => {
      // suite_test.go "should delete the NodeClaim when receiving a state change message"
      expect(decide(message(kind), [launched('spot')])).toStrictEqual([
        {
          nodeClaim: 'default-x7k2',
          node: 'ip-default-x7k2',
          event: INTERRUPTION_EVENTS[kind],
          replace: false,
          deleteNodeClaim: true,
        },
      ]);
    },
  );

  it('decides for every NodeClaim a message names, in its order, skipping instances that are not ours', () => {
    // "should handle multiple messages that cause nodeClaim deletion"; "should not return an error
    // when deleting a nodeClaim that is already deleted" (an unknown instance is no error).
    const a = launched('on-demand', { instanceId: 'i-0aaa', name: 'a', node: null });
    const b = launched('on-demand', { instanceId: 'i-0bbb', name: 'b' });
    const decisions = decide(message('scheduled-change', ['i-0bbb', 'i-0fff', 'i-0aaa']), [a, b]);
    expect(decisions.map((d) => [d.nodeClaim, d.node])).toStrictEqual([
      ['b', 'ip-b'],
      ['a', undefined],
    ]);
    expect('node' in (decisions[1] ?? {})).toBe(false);
  });
});

describe('decideInterruption: NoAction and NodeClaims already deleting', () => {
  it('gives a rebalance recommendation only its Event by default (NoAction)', () => {
    expect(decide(message('rebalance-recommendation'), [launched('spot')])).toStrictEqual([
      {
        nodeClaim: 'default-x7k2',
        node: 'ip-default-x7k2',
        event: INTERRUPTION_EVENTS['rebalance-recommendation'],
        replace: false,
        deleteNodeClaim: false,
      },
    ]);
  });

  it('drains and replaces on a rebalance recommendation with REBALANCE_ACTION=replace, marking nothing', () => {
    expect(decide(message('rebalance-recommendation'), [launched('spot')], 'replace')).toStrictEqual([
      {
        nodeClaim: 'default-x7k2',
        node: 'ip-default-x7k2',
        event: INTERRUPTION_EVENTS['rebalance-recommendation'],
        replace: true,
        deleteNodeClaim: true,
        cordon: cordon('rebalance-recommendation'),
      },
    ]);
  });

  it('still records the Event and marks the offering for a NodeClaim already deleting, but acts no more', () => {
    // handleNodeClaim runs notifyForMessage and markUnavailableOfferings before deleteNodeClaim,
    // which returns early when the NodeClaim has a deletionTimestamp.
    const claim = launched('spot', { deleting: true });
    expect(decide(message('spot-interruption'), [claim])).toStrictEqual([
      {
        nodeClaim: 'default-x7k2',
        node: 'ip-default-x7k2',
        unavailable: { instanceType: 't3.large', zone: 'test-zone-1a', capacityType: 'spot' },
        event: INTERRUPTION_EVENTS['spot-interruption'],
        replace: false,
        deleteNodeClaim: false,
      },
    ]);
    for (const kind of ['scheduled-change', 'instance-terminated', 'rebalance-recommendation'] as const) {
      const [d] = decide(message(kind), [claim], 'replace');
      expect([d?.replace, d?.deleteNodeClaim, d?.cordon, d?.unavailable]).toStrictEqual([
        false,
        false,
        undefined,
        undefined,
      ]);
    }
  });

  it('decides nothing for unknown and no-action messages', () => {
    const claims = [launched('spot')];
    expect(decide({ kind: 'unknown', why: 'the body is not JSON' }, claims)).toStrictEqual([]);
    expect(decide({ kind: 'no-action', id: 'evt', why: 'instance state running' }, claims)).toStrictEqual([]);
  });
});

describe('INTERRUPTION_EVENTS', () => {
  it('words each kind as Karpenter’s events.go does', () => {
    const table = Object.entries(INTERRUPTION_EVENTS).map(([kind, e]) => [kind, e.type, e.reason, e.message]);
    expect(table).toStrictEqual([
      ['spot-interruption', 'Warning', 'SpotInterrupted', 'Spot interruption warning was triggered'],
      [
        'capacity-reservation-interruption',
        'Warning',
        'CapacityReservationInstanceInterrupted',
        'Capacity Reservation interruption warning was triggered',
      ],
      [
        'rebalance-recommendation',
        'Normal',
        'SpotRebalanceRecommendation',
        'Spot rebalance recommendation was triggered',
      ],
      [
        'scheduled-change',
        'Warning',
        'InstanceUnhealthy',
        'An unhealthy warning was triggered for the instance',
      ],
      ['instance-stopped', 'Warning', 'InstanceStopping', 'Instance is stopping'],
      ['instance-terminated', 'Warning', 'InstanceTerminating', 'Instance is terminating'],
    ]);
  });
});
