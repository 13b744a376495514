import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeManifest } from '../../sim/world/builders';
import {
  about,
  claim,
  fixture,
  interruptionWorld,
  type Json,
  running,
  sqsRecord,
  web,
} from '../functions/interruption/world';
import { lambdaContext, NODE, type ProvisionerWorld } from '../functions/provisioner/world';

// Malformed and hostile bodies on the interruption queue (issue 20, item 7). Karpenter's
// interruption controller (aws/karpenter-provider-aws pkg/controllers/interruption/controller.go
// Reconcile / handleMessage) deletes a message it cannot parse and acts only on the NodeClaim
// whose instance a message names (suite_test.go "should delete a message when the message
// can't be parsed", "should not delete a node when not owned by provisioner"). So: every body
// here is acknowledged, none fails the batch, and nothing is done to an instance, Node or
// NodeClaim podlift does not own — even when the body names one. The world is shared: one
// owned node running a pod, and an instance with a Node that someone else launched.

/** An instance and a Node podlift does not own: launched outside it, no NodeClaim, no NodePool label. */
const FOREIGN_NODE = 'ip-10-9-9-9.ec2.internal';
/** Stands for the foreign instance's id in the bodies; replaced once it is launched. */
const foreign = 'i-f0re1gn';

const spot = (instanceId: unknown) => ({
  ...fixture('spot-interruption-warning'),
  detail: { 'instance-id': instanceId },
});
const withDetail = (name: string, detail: unknown) => ({ ...fixture(name), detail });

/** Bodies as strings (what SQS carries), each with why it is hostile. */
const BODIES = bodies();
function bodies(): readonly { readonly what: string; readonly body: string }[] {
  const raw = (what: string, body: string) => ({ what, body });
  const json = (what: string, value: unknown) => ({ what, body: JSON.stringify(value) });
  return [
    raw('an empty body', ''),
    raw('white space', ' \n\t'),
    raw('JSON null', 'null'),
    raw('JSON true', 'true'),
    raw('a number', '0'),
    raw('a number JSON cannot hold', '1e400'),
    raw('a JSON string', '"EC2 Spot Instance Interruption Warning"'),
    raw('an empty array', '[]'),
    raw('an array of events', JSON.stringify([spot(foreign)])),
    raw('an unterminated object', '{"detail-type": "EC2 Spot Instance Interruption Warning", "detail": {'),
    raw('a lone brace', '}'),
    raw('control characters', '\u0000\u0001\u0002\u001b[31m'),
    raw('a lone surrogate', '{"detail-type": "\ud800"}'),
    raw('256 KiB of one letter (SQS maximum)', 'x'.repeat(262_144)),
    raw('100,000 unclosed brackets', '['.repeat(100_000)),
    raw('50,000 nested arrays', `${'['.repeat(50_000)}${']'.repeat(50_000)}`),
    raw('20,000 nested details', `${'{"detail":'.repeat(20_000)}1${'}'.repeat(20_000)}`),
    raw('XML', '<Event><Type>spot</Type></Event>'),
    raw('YAML', 'detail-type: EC2 Spot Instance Interruption Warning\ndetail: {instance-id: x}\n'),
    json('an empty object', {}),
    json('only a version', { version: '0' }),
    json('a spot warning without detail', { ...fixture('spot-interruption-warning'), detail: undefined }),
    json('a spot warning with a null detail', withDetail('spot-interruption-warning', null)),
    json('a spot warning with a string detail', withDetail('spot-interruption-warning', 'i-0')),
    json('a spot warning with an array detail', withDetail('spot-interruption-warning', [foreign])),
    json('a null instance id', spot(null)),
    json('a numeric instance id', spot(42)),
    json('an array of instance ids', spot([foreign, 'i-2'])),
    json('an operator object as instance id', spot({ $ne: '' })),
    json('an empty instance id', spot('')),
    json('a path as instance id', spot('../../../../etc/passwd')),
    json('a 100,000-character instance id', spot(`i-${'f'.repeat(100_000)}`)),
    json('an instance id with a wildcard', spot('i-*')),
    json('a spot warning for a foreign instance', spot(foreign)),
    json('a spot warning for an instance nobody has', spot('i-0123456789abcdef0')),
    json('a rebalance recommendation for a foreign instance', about('rebalance-recommendation', foreign)),
    json('a stopping state change of a foreign instance', about('state-change-stopping', foreign)),
    json('a terminated state change of a foreign instance', about('state-change-terminated', foreign)),
    json('a shutting-down state change of a foreign instance', about('state-change-shutting-down', foreign)),
    json('a scheduled Health event for a foreign instance', about('health-scheduled-change', foreign)),
    json(
      'a capacity reservation warning for a foreign instance',
      about('capacity-reservation-interruption-warning', foreign),
    ),
    json('a Health event naming 10,000 foreign entities', {
      ...fixture('health-scheduled-change'),
      detail: {
        ...fixture('health-scheduled-change').detail,
        affectedEntities: Array.from({ length: 10_000 }, () => ({ entityValue: foreign })),
      },
    }),
    json('a Health event with entities of the wrong type', {
      ...fixture('health-scheduled-change'),
      detail: {
        ...fixture('health-scheduled-change').detail,
        affectedEntities: [null, 5, { entityValue: 7 }, 'x'],
      },
    }),
    json('a Health event whose entities are a string', {
      ...fixture('health-scheduled-change'),
      detail: { ...fixture('health-scheduled-change').detail, affectedEntities: foreign },
    }),
    json('an ASG lifecycle hook for a foreign instance', {
      ...fixture('asg-lifecycle-direct-sqs-terminating'),
      EC2InstanceId: foreign,
    }),
    json('an ASG test notification', fixture('asg-lifecycle-direct-sqs-test-notification')),
    json('a body that is not an event (fixture)', fixture('malformed-not-an-event')),
    json('an unknown detail-type (fixture)', fixture('unknown-detail-type')),
    json('a numeric detail-type', { ...spot(foreign), 'detail-type': 1234 }),
    json('a 100,000-character detail-type', { ...spot(foreign), 'detail-type': 'x'.repeat(100_000) }),
    json('an impossible time', { ...spot(foreign), time: 'yesterday-ish' }),
    json('a time far in the future', { ...spot(foreign), time: '9999-12-31T23:59:59Z' }),
    json('an SNS envelope around a warning', {
      Type: 'Notification',
      Message: JSON.stringify(spot(foreign)),
    }),
    json('an S3 event', { Records: [{ eventSource: 'aws:s3', s3: { object: { key: 'x' } } }] }),
    raw(
      'a __proto__ key (prototype pollution)',
      `{"__proto__": {"polluted": true}, "detail-type": "EC2 Spot Instance Interruption Warning", "source": "aws.ec2", "detail": {"instance-id": "${foreign}", "__proto__": {"instance-id": "i-0"}}}`,
    ),
    json('a constructor.prototype key', { constructor: { prototype: { polluted: true } }, ...spot(foreign) }),
  ];
}

let pw: ProvisionerWorld;
let owned: { claimName: string; instanceId: string };
let handle: Awaited<ReturnType<typeof interruptionWorld>>['handle'];
let seen: Awaited<ReturnType<typeof interruptionWorld>>['seen'];
const failures = new Set<string>();
let foreignNodeBefore: Json;
let foreignInstance = '';
let terminatesBefore = 0;

beforeAll(async () => {
  const t = await interruptionWorld([web()], 'spot');
  pw = t.pw;
  owned = { claimName: t.claimName, instanceId: t.instanceId };
  handle = t.handle;
  seen = t.seen;
  const { ec2, kube } = pw.world.fakes;
  const foreignId = ec2.launchOutside({
    instanceType: 'm5.large',
    capacityType: 'spot',
    tags: [{ Key: 'team', Value: 'other' }],
  });
  foreignInstance = foreignId;
  const zone = ec2.instance(foreignId)?.Placement?.AvailabilityZone;
  const node = nodeManifest({ name: FOREIGN_NODE, ready: true });
  kube.store.seed('nodes', { ...node, spec: { ...node.spec, providerID: `aws:///${zone}/${foreignId}` } });
  foreignNodeBefore = kube.store.get('nodes', FOREIGN_NODE) as Json;
  terminatesBefore = ec2.callsTo('TerminateInstances').length;
  // Batches of ten, as the event source mapping delivers them.
  for (let start = 0; start < BODIES.length; start += 10) {
    const records = BODIES.slice(start, start + 10).map((b) =>
      sqsRecord(b.body.replaceAll(foreign, foreignId), b.what),
    );
    const response = await handle({ Records: records }, lambdaContext(`batch-${start}`));
    for (const f of response.batchItemFailures) failures.add(f.itemIdentifier);
  }
}, 120_000);

afterAll(async () => {
  await pw?.world.close();
});

describe('interruption: malformed and hostile SQS bodies', () => {
  it('has at least 50 of them', () => {
    expect(BODIES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(BODIES)('acknowledges $what without failing the batch', ({ what }) => {
    expect(failures.has(what)).toBe(false);
  });

  it('does nothing to the instance, Node or NodeClaim it does not own, nor to its own', () => {
    const { ec2, kube } = pw.world.fakes;
    expect(ec2.callsTo('TerminateInstances')).toHaveLength(terminatesBefore);
    expect(running(pw).map((i) => i.InstanceId)).toEqual(
      expect.arrayContaining([foreignInstance, owned.instanceId]),
    );
    const foreignNode = kube.store.get('nodes', FOREIGN_NODE) as Json;
    expect(foreignNode.metadata.resourceVersion).toBe(foreignNodeBefore.metadata.resourceVersion);
    expect(foreignNode.spec.taints ?? []).toEqual([]);
    expect((kube.store.get('nodes', NODE) as Json).spec.taints ?? []).toEqual([]);
    expect(claim(pw, owned.claimName).metadata.deletionTimestamp).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(seen.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('still acts on a real warning for an instance it owns afterwards', async () => {
    const response = await handle(
      { Records: [sqsRecord(about('spot-interruption-warning', owned.instanceId), 'real')] },
      lambdaContext('real'),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(claim(pw, owned.claimName).metadata.deletionTimestamp).toBeDefined();
  });
});
