import { afterEach, describe, expect, it } from 'vitest';
import { runtimeOf } from '../../functions/runtime';
import { makeTerminationHandler } from '../../functions/termination/handler';
import { ORPHAN_GRACE_MS } from '../../shared/core/termination/decide';
import { parseEach } from '../../shared/kube/parsed-list';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import {
  about,
  claim,
  claims,
  interruptionWorld,
  type Json,
  running,
  sqsEvent,
  web,
} from '../functions/interruption/world';
import {
  lambdaContext,
  type ProvisionerWorld,
  scheduledEvent,
  withOneNode,
} from '../functions/provisioner/world';
import { aliasBomb, header } from './hostile-documents';

let pw: ProvisionerWorld | undefined;
afterEach(async () => {
  await pw?.world.close();
  pw = undefined;
});

describe('objects read from the cluster that do not parse', () => {
  it('are reported one by one, by Kind/namespace/name, whatever the parser threw; the others are read', () => {
    const objects = [
      { metadata: { name: 'good' } },
      { metadata: { name: 'odd', namespace: 'team' } },
      { metadata: {} },
    ];
    const parsed = parseEach(objects, 'Pod', (o) => {
      if (o.metadata.name === 'good') return o.metadata.name;
      throw new TypeError('Cannot read properties of undefined');
    });
    expect(parsed.items).toEqual(['good']);
    expect(parsed.invalid.map((e) => [e.location, e.message])).toEqual([
      [
        { source: 'cluster', object: 'Pod/team/odd' },
        'cluster, Pod/team/odd: (object): cannot be read: Cannot read properties of undefined (got nothing)',
      ],
      [
        { source: 'cluster', object: 'Pod/<unnamed>' },
        'cluster, Pod/<unnamed>: (object): cannot be read: Cannot read properties of undefined (got nothing)',
      ],
    ]);
  });

  it('keeps the instance of a NodeClaim that exists but does not validate: it is owned, not an orphan', async () => {
    // Karpenter's nodeclaim/garbagecollection/controller.go Reconcile collects an instance only
    // when no NodeClaim of the cluster has its providerID, and collects nothing when the
    // NodeClaims cannot be listed and decoded.
    const one = await withOneNode([web()]);
    pw = one.pw;
    const store = pw.world.fakes.kube.store;
    const stored = claim(pw, one.claimName) as Json;
    store.update('nodeclaims.karpenter.sh', {
      ...stored,
      spec: { ...stored.spec, requirements: 'all of them' },
    });
    await pw.world.time.advanceAsync(ORPHAN_GRACE_MS + 60_000);
    const seen = new RecordingObservability();
    const runtime = runtimeOf('termination', pw.world.ports, pw.world.time, seen.log, seen.metricsPort);

    await makeTerminationHandler(() => runtime)(scheduledEvent('t'), lambdaContext('t'));

    expect(running(pw).map((i) => i.InstanceId)).toContain(one.instanceId);
    expect(pw.world.fakes.ec2.callsTo('TerminateInstances')).toEqual([]);
    const [line] = seen.linesSaying('skipping an invalid object');
    expect(line?.fields).toMatchObject({ object: `NodeClaim/${one.claimName}`, source: 'cluster' });
    expect(String(line?.fields.error)).toContain('spec.requirements');
    expect(seen.total('InvalidObjects', { kind: 'NodeClaim' })).toBe(1);
  });

  it("replaces an interrupted node while an SSM parameter holds an alias bomb (the reviewer's case)", async () => {
    // Measured before the fix: every loop threw, the interrupted node stayed cordoned and
    // nothing replaced it. Karpenter's interruption controller.go handleMessage deletes the
    // NodeClaim and the provisioner launches for its pods.
    const t = await interruptionWorld([web()], 'spot');
    pw = t.pw;
    pw.world.fakes.ssm.seed({
      name: '/podlift/demo/nodepools/bomb',
      value: `${header('NodePool', 'bomb')}${aliasBomb()}`,
    });

    const response = await t.handle(
      sqsEvent([about('spot-interruption-warning', t.instanceId)]),
      lambdaContext('i'),
    );

    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(claim(pw, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(pw).filter((c) => c.metadata.name !== t.claimName)).toHaveLength(1);
    expect(running(pw)).toHaveLength(2);
    const [line] = t.seen.linesSaying('skipping an invalid object');
    expect(line?.fields).toMatchObject({ source: '/podlift/demo/nodepools/bomb', object: 'NodePool/bomb' });
  });
});
