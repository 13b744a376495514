import { afterEach, describe, expect, it } from 'vitest';
import { runtimeOf } from '../../functions/runtime';
import { makeTerminationHandler } from '../../functions/termination/handler';
import { ORPHAN_GRACE_MS } from '../../shared/core/termination/decide';
import { parseEach } from '../../shared/kube/parsed-list';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { claim, type Json, running, web } from '../functions/interruption/world';
import {
  lambdaContext,
  type ProvisionerWorld,
  scheduledEvent,
  withOneNode,
} from '../functions/provisioner/world';

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
});
