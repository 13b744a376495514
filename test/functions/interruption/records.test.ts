import { afterEach, describe, expect, it } from 'vitest';
import { lambdaContext, NODE, type ProvisionerWorld, settle } from '../provisioner/world';
import {
  about,
  addNode,
  claim,
  claims,
  fixture,
  interruptionWorld,
  type Json,
  sqsEvent,
  sqsRecord,
  web,
} from './world';

// Karpenter's controller.go Reconcile handles each message alone: one it cannot parse (no body,
// not JSON) is logged and deleted, one whose handling fails stays in the queue, the rest are
// deleted once handled (suite_test.go "should delete a message when the message can't be parsed").

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

describe('interruption: records of a batch', () => {
  it('fails only the record whose handling throws, acknowledging malformed ones and acting on the valid warning', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const second = await addNode(w, 'ip-10-0-0-2.ec2.internal', 'api-1');
    const deleteOfSecond = `/apis/karpenter.sh/v1/nodeclaims/${second.claimName}`;
    w.world.fakes.kube.failNext('delete', deleteOfSecond, 503, { times: 10 });
    const { body: _, ...noBody } = sqsRecord({}, 'no-body');
    const { messageId: __, ...noId } = sqsRecord(about('spot-interruption-warning', 'i-0fff'), 'x');
    const event = {
      Records: [
        noBody,
        sqsRecord('{"version": "0", not json', 'not-json'),
        sqsRecord(about('spot-interruption-warning', t.instanceId), 'valid'),
        sqsRecord(about('spot-interruption-warning', second.instanceId), 'throws'),
        noId,
        null,
      ],
    };

    const response = await settle(w.world, t.handle(event, lambdaContext('i1')));

    expect(response).toStrictEqual({ batchItemFailures: [{ itemIdentifier: 'throws' }] });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claim(w, second.claimName).metadata.deletionTimestamp).toBeUndefined();
    // Both nodes were cordoned before the second delete failed, so the one replacement run
    // launched for web-1 and api-1 alike.
    const launched = claims(w).length;
    expect(launched).toBeGreaterThan(2);
    expect(t.seen.total('InterruptionMessages', { kind: 'unknown' })).toBe(4);
    expect(t.seen.total('InterruptionMessages', { kind: 'spot-interruption' })).toBe(2);
    const why = t.seen
      .linesSaying('acknowledging an interruption message that can never be handled')
      .map((l) => [l.level, l.fields.messageId]);
    expect(why).toStrictEqual([
      ['warn', 'no-body'],
      ['warn', 'not-json'],
      ['warn', undefined],
      ['warn', undefined],
    ]);

    // Delivered again once the API server answers, the failed record is finished.
    w.world.fakes.kube.clearFaults();
    const again = await t.handle(
      sqsEvent([about('spot-interruption-warning', second.instanceId)], ['throws']),
      lambdaContext('i2'),
    );
    expect(again).toStrictEqual({ batchItemFailures: [] });
    expect(claim(w, second.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w)).toHaveLength(launched);
  });

  // A failed record comes back only after the queue's 30 s visibility timeout: a few transient
  // refusals are tried again within the invocation (client-go's DefaultBackoff, 10/50/250 ms).
  it('finishes a record whose cordon and delete are refused three times each, in the same invocation', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    const { kube } = w.world.fakes;
    kube.failNext('patch', `/api/v1/nodes/${NODE}`, 500, { times: 3 });
    kube.failNext('delete', `/apis/karpenter.sh/v1/nodeclaims/${t.claimName}`, 503, { times: 3 });
    const started = w.world.time.now();
    const message = sqsEvent([about('spot-interruption-warning', t.instanceId)], ['m1']);
    expect(await settle(w.world, t.handle(message, lambdaContext('i1')))).toStrictEqual({
      batchItemFailures: [],
    });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(
      ((w.world.fakes.kube.store.get('nodes', NODE) as Json).spec.taints ?? []) as Json[],
    ).toContainEqual({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    // Two rounds of 10 + 50 + 250 ms, and nothing longer.
    expect(w.world.time.now() - started).toBeLessThan(2_000);
  });

  it('finishes on redelivery a record whose NodeClaim delete failed, without a second replacement', async () => {
    const t = await interruptionWorld([web()]);
    w = t.pw;
    w.world.fakes.kube.failNext('delete', `/apis/karpenter.sh/v1/nodeclaims/${t.claimName}`, 503, {
      times: 10,
    });
    const message = sqsEvent([about('spot-interruption-warning', t.instanceId)], ['m1']);
    expect(await settle(w.world, t.handle(message, lambdaContext('i1')))).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: 'm1' }],
    });
    // Cordoned before the delete failed: the provisioner's runs already see web-1 as needing a home.
    expect(
      ((w.world.fakes.kube.store.get('nodes', NODE) as Json).spec.taints ?? []) as Json[],
    ).toContainEqual({
      key: 'karpenter.sh/disrupted',
      effect: 'NoSchedule',
    });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeUndefined();

    w.world.fakes.kube.clearFaults();
    expect(await t.handle(message, lambdaContext('i2'))).toStrictEqual({ batchItemFailures: [] });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w).filter((c) => c.metadata.name !== t.claimName)).toHaveLength(1);
  });

  it('acknowledges unknown kinds, malformed bodies and other clusters’ instances, counting each kind', async () => {
    const t = await interruptionWorld();
    w = t.pw;
    const response = await t.handle(
      sqsEvent([
        fixture('unknown-detail-type'),
        fixture('malformed-not-an-event'),
        fixture('spot-interruption-warning'),
        fixture('state-change-running'),
      ]),
      lambdaContext('i1'),
    );
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(t.seen.total('InterruptionMessages', { kind: 'unknown' })).toBe(2);
    expect(t.seen.total('InterruptionMessages', { kind: 'no-action' })).toBe(1);
    expect(claims(w)).toHaveLength(1);
    expect(await t.handle({ not: 'sqs' }, lambdaContext('i2'))).toStrictEqual({ batchItemFailures: [] });
  });
});
