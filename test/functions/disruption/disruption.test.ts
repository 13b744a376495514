import { afterEach, describe, expect, it } from 'vitest';
import type { ProvisionerWorld } from '../provisioner/world';
import { bound, claim, claims, disruptionWorld, type Json } from './world';

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

describe('disruption: emptiness', () => {
  it('records a command on the empty node, waits 15 s, validates it again, then deletes the NodeClaim', async () => {
    const t = await disruptionWorld([]);
    w = t.pw;
    expect(await t.disrupt()).toMatchObject({ ran: true, steps: ['recorded emptiness'] });
    const command = JSON.parse(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']);
    expect(command).toMatchObject({
      method: 'emptiness',
      reason: 'Empty',
      candidates: [t.claimName],
      replace: false,
    });
    expect(command.savings).toBeGreaterThan(0);

    w.world.time.advance(10_000);
    expect((await t.disrupt())?.steps).toEqual([`waiting ${command.id}`]);
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeUndefined();

    w.world.time.advance(10_000);
    expect((await t.disrupt())?.steps).toEqual([`executed ${command.id}`]);
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(t.seen.total('DisruptionCommands', { method: 'emptiness' })).toBe(1);
    // kubernetes-sigs/karpenter disruption/queue.go publishes events.go `Terminating` on both.
    const terminating = (w.world.fakes.kube.store.list('events').items as Json[])
      .filter((e) => e.reason === 'DisruptionTerminating')
      .map((e) => `${e.involvedObject.kind}: ${e.message}`);
    expect(terminating.sort()).toStrictEqual([
      'Node: Disrupting Node: Empty',
      'NodeClaim: Disrupting NodeClaim: Empty',
    ]);
  });

  it('finishes a command an earlier run stopped deleting part-way', async () => {
    const t = await disruptionWorld([]);
    w = t.pw;
    await t.disrupt();
    const store = w.world.fakes.kube.store;
    const first = claim(w, t.claimName);
    // The command as a two-node one whose run deleted the first candidate and then crashed.
    const command = JSON.parse(first.metadata.annotations['podlift.dev/disruption-command']);
    const text = JSON.stringify({ ...command, candidates: [t.claimName, 'second'] });
    store.update('nodeclaims.karpenter.sh', {
      ...first,
      metadata: {
        ...first.metadata,
        annotations: { ...first.metadata.annotations, 'podlift.dev/disruption-command': text },
      },
    });
    store.seed('nodeclaims.karpenter.sh', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name: 'second',
        labels: first.metadata.labels,
        annotations: { 'podlift.dev/disruption-command': text },
        finalizers: ['karpenter.sh/termination'],
      },
      spec: first.spec,
    });
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    w.world.time.advance(20_000);
    expect((await t.disrupt())?.steps).toEqual([`executed ${command.id}`]);
    expect(claim(w, 'second').metadata.deletionTimestamp).toBeDefined();
  });

  it('cancels the command when a pod lands on the node before it runs', async () => {
    const t = await disruptionWorld([]);
    w = t.pw;
    await t.disrupt();
    w.world.fakes.kube.store.seed('pods', bound('late'));
    w.world.time.advance(20_000);
    const summary = await t.disrupt();
    expect(summary?.steps[0]).toMatch(/^cancelled /);
    expect(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']).toBeUndefined();
  });

  it('disrupts nothing under a budget of 0, and says why on the Node', async () => {
    const t = await disruptionWorld([], (spec) => ({
      ...spec,
      disruption: { consolidateAfter: '0s', budgets: [{ nodes: '0' }] },
    }));
    w = t.pw;
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    const events = w.world.fakes.kube.store.list('events').items as Json[];
    expect(events.some((e) => e.reason === 'DisruptionBlocked' && e.message.includes('budget'))).toBe(true);
  });
});

describe('disruption: drift', () => {
  it('replaces a node whose NodePool template changed: the replacement is launched before the old node goes', async () => {
    const t = await disruptionWorld([bound('web-1')], (spec) => ({
      ...spec,
      template: { ...spec.template, metadata: { labels: { team: 'payments' } } },
    }));
    w = t.pw;
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    w.world.time.advance(20_000);
    const replacing = await t.disrupt();
    expect(replacing?.steps[0]).toMatch(/^replacing /);
    const replacement = claims(w).find((c) => c.metadata.annotations?.['podlift.dev/replaces']);
    expect(replacement?.metadata.labels.team).toBe('payments');
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeUndefined();
    // The replacement is not Initialized yet: the old node stays.
    expect((await t.disrupt())?.steps[0]).toMatch(/^replacing /);
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeUndefined();
  });

  it('deletes the drifted node without a replacement when its pods left before the command ran', async () => {
    const t = await disruptionWorld([bound('web-1')], (spec) => ({
      ...spec,
      template: { ...spec.template, metadata: { labels: { team: 'payments' } } },
    }));
    w = t.pw;
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    w.world.fakes.kube.store.delete('pods', 'web-1');
    w.world.time.advance(20_000);
    expect((await t.disrupt())?.steps[0]).toMatch(/^executed /);
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(claims(w).some((c) => c.metadata.annotations?.['podlift.dev/replaces'])).toBe(false);
  });

  it('leaves a drifted node alone while a pod on it has karpenter.sh/do-not-disrupt', async () => {
    const t = await disruptionWorld(
      [bound('batch-1', { 'karpenter.sh/do-not-disrupt': 'true' })],
      (spec) => ({
        ...spec,
        template: { ...spec.template, metadata: { labels: { team: 'payments' } } },
      }),
    );
    w = t.pw;
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    const events = w.world.fakes.kube.store.list('events').items as Json[];
    expect(events.some((e) => e.reason === 'DisruptionBlocked' && e.message.includes('do-not-disrupt'))).toBe(
      true,
    );
  });
});

describe('disruption: subnet and security-group drift', () => {
  /** The EC2NodeClass `default` with `spec` changed by `edit`. */
  const editNodeClass = (pw: ProvisionerWorld, edit: (spec: Json) => Json) => {
    const store = pw.world.fakes.kube.store;
    const current = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default') as Json;
    store.update('ec2nodeclasses.karpenter.k8s.aws', {
      ...current,
      spec: edit(structuredClone(current.spec)),
    });
  };

  it('replaces a node whose subnet the EC2NodeClass no longer selects', async () => {
    const t = await disruptionWorld([bound('web-1')]);
    w = t.pw;
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    const subnet = w.world.fakes.ec2.instance(t.instanceId)?.SubnetId;
    const others = [
      'subnet-00000000000000001',
      'subnet-00000000000000002',
      'subnet-00000000000000003',
    ].filter((id) => id !== subnet);
    editNodeClass(w, (spec) => ({ ...spec, subnetSelectorTerms: others.map((id) => ({ id })) }));
    w.world.time.advance(61_000); // past the resolver's 60 s subnet cache
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const command = JSON.parse(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']);
    expect(command).toMatchObject({ method: 'drift', replace: true, candidates: [t.claimName] });
    expect(command.detail).toBe(`subnet ${subnet} is no longer selected`);
  });

  it('replaces a node when a security group joins the selection, and not while the set is the same', async () => {
    const t = await disruptionWorld([bound('web-1')]);
    w = t.pw;
    // A subnet the selector also finds changes nothing: the instance's subnet is still selected.
    w.world.fakes.ec2.addSubnet({
      id: 'subnet-00000000000000009',
      availabilityZone: 'us-east-1a',
      availableIpAddressCount: 100,
      tags: { 'karpenter.sh/discovery': 'demo' },
    });
    w.world.time.advance(61_000);
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    w.world.fakes.ec2.addSecurityGroup({
      id: 'sg-0000000000000000f',
      name: 'extra',
      tags: { 'karpenter.sh/discovery': 'demo' },
    });
    w.world.time.advance(61_000);
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const command = JSON.parse(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']);
    expect(command.detail).toMatch(/^security groups sg-0000000000000000a are no longer the selected /);
  });
});

describe('disruption: expiration and the Lease', () => {
  it('deletes a NodeClaim past its expireAfter whatever the budgets say, and not before', async () => {
    const t = await disruptionWorld([bound('web-1')], (spec) => ({
      ...spec,
      disruption: { consolidateAfter: '0s', budgets: [{ nodes: '0' }] },
    }));
    w = t.pw;
    expect(claim(w, t.claimName).spec.expireAfter).toBe('720h');
    w.world.time.advance(719 * 3_600_000);
    expect(await t.disrupt()).toMatchObject({ expired: 0 });
    w.world.time.advance(3_600_000);
    expect(await t.disrupt()).toMatchObject({ expired: 1 });
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeDefined();
    expect(t.seen.total('DisruptionCommands', { method: 'expiration' })).toBe(1);
  });

  it('yields to an invocation holding the cluster Lease', async () => {
    const t = await disruptionWorld([]);
    w = t.pw;
    await w.world.ports.lease.acquire('provisioner/other', 120);
    expect(await t.disrupt()).toMatchObject({ ran: false });
  });
});
