import { afterEach, describe, expect, it } from 'vitest';
import { podDisruptionBudgetManifest } from '../../../sim/world/builders';
import { NODE, type ProvisionerWorld, settle } from '../provisioner/world';
import { bound, claim, claims, disruptionWorld, events, type Json, taints } from './world';

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const DISRUPTED = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
const condition = (pw: ProvisionerWorld, name: string, type: string) =>
  ((claim(pw, name).status.conditions ?? []) as Json[]).find((c) => c.type === type);
const labelled = (spec: Json) => ({
  ...spec,
  template: { ...spec.template, metadata: { labels: { team: 'payments' } } },
});
const waitingFor = (consolidateAfter: string) => (spec: Json) => ({
  ...spec,
  disruption: { ...spec.disruption, consolidateAfter },
});

describe('disruption: consolidateAfter and the Consolidatable condition', () => {
  // nodeclaim/disruption/suite_test.go "Consolidation": consolidatable once lastPodEventTime +
  // consolidateAfter has passed, not before; podevents/suite_test.go: a pod leaving is an event.
  it('deletes an empty node only consolidateAfter after its last pod left, however long ago it was initialized', async () => {
    const t = await disruptionWorld([bound('web-1')], waitingFor('5m'));
    w = t.pw;
    w.world.time.advance(2 * 3_600_000);
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    w.world.time.advance(60_000);
    w.world.fakes.kube.store.delete('pods', 'web-1', { namespace: 'default' });
    const leftAt = w.world.time.now();
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    expect(claim(w, t.claimName).status.lastPodEventTime).toBe(
      new Date(leftAt).toISOString().replace('.000', ''),
    );
    expect(condition(w, t.claimName, 'Consolidatable')).toBeUndefined();
    w.world.time.advance(5 * 60_000 - 1_000);
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    w.world.time.advance(1_000);
    expect(await t.disrupt()).toMatchObject({ steps: ['recorded emptiness'] });
    expect(condition(w, t.claimName, 'Consolidatable')).toMatchObject({ status: 'True' });
  });

  it('consolidates nothing under consolidateAfter: Never, and says so once on the Node and the NodeClaim', async () => {
    const t = await disruptionWorld([], waitingFor('Never'));
    w = t.pw;
    w.world.time.advance(3_600_000);
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    w.world.fakes.kube.clearRequests();
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] });
    // What is already said is read once per reason, not once per Node and NodeClaim.
    const reads = w.world.fakes.kube.requests.filter((r) => r.verb === 'list' && r.path.endsWith('/events'));
    expect(reads.map((r) => r.query.fieldSelector)).toEqual(['reason=Unconsolidatable']);
    const said = events(w)
      .filter((e) => e.reason === 'Unconsolidatable')
      .sort((a, b) => a.object.localeCompare(b.object));
    expect(said).toEqual([
      {
        object: `Node/${NODE}`,
        type: 'Normal',
        reason: 'Unconsolidatable',
        message: 'NodePool "default" has consolidation disabled',
      },
      {
        object: `NodeClaim/${t.claimName}`,
        type: 'Normal',
        reason: 'Unconsolidatable',
        message: 'NodePool "default" has consolidation disabled',
      },
    ]);
    expect(condition(w, t.claimName, 'Consolidatable')).toBeUndefined();
  });
});

describe('disruption: commands taint, wait and time out', () => {
  it('taints the candidate and marks DisruptionReason when the command starts, before its replacement launches', async () => {
    const t = await disruptionWorld([bound('web-1')], labelled);
    w = t.pw;
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    // Through the 15 s validation the node still takes pods, as in Karpenter.
    expect(taints(w)).not.toContainEqual(expect.objectContaining(DISRUPTED));
    w.world.time.advance(20_000);
    const from = w.world.fakes.kube.requests.length;
    expect((await t.disrupt())?.steps[0]).toMatch(/^replacing /);
    expect(taints(w)).toContainEqual(expect.objectContaining(DISRUPTED));
    expect(condition(w, t.claimName, 'DisruptionReason')).toMatchObject({
      status: 'True',
      reason: 'Drifted',
    });
    const requests = w.world.fakes.kube.requests.slice(from);
    const tainted = requests.findIndex((r) => r.method !== 'GET' && r.path === `/api/v1/nodes/${NODE}`);
    const launched = requests.findIndex(
      (r) => r.method === 'POST' && r.path === '/apis/karpenter.sh/v1/nodeclaims',
    );
    expect(tainted).toBeGreaterThanOrEqual(0);
    expect(launched).toBeGreaterThan(tainted);
  });

  it('gives up a replacement that never initializes after 10 minutes: deletes it, lifts the taint and says why', async () => {
    const t = await disruptionWorld([bound('web-1')], labelled);
    w = t.pw;
    await t.disrupt();
    w.world.time.advance(20_000);
    const startedAt = w.world.time.now();
    const id = ((await t.disrupt())?.steps[0] ?? '').replace('replacing ', '');
    const replacement = claims(w).find((c) => c.metadata.annotations?.['podlift.dev/replaces'] === id);
    expect(replacement).toBeDefined();
    const name = replacement?.metadata.name as string;
    w.world.time.advance(10 * 60_000 - 20_000);
    expect((await t.disrupt())?.steps[0]).toBe(`replacing ${id}`);
    expect(events(w).filter((e) => e.object === `NodeClaim/${name}`)).toEqual([
      {
        object: `NodeClaim/${name}`,
        type: 'Normal',
        reason: 'DisruptionLaunching',
        message: 'Launching NodeClaim: Drifted',
      },
      {
        object: `NodeClaim/${name}`,
        type: 'Normal',
        reason: 'DisruptionWaitingReadiness',
        message: 'Waiting on readiness to continue disruption',
      },
    ]);
    w.world.time.advance(startedAt + 10 * 60_000 + 1_000 - w.world.time.now());
    expect((await t.disrupt())?.steps[0]).toBe(`timed out ${id}`);
    expect(claim(w, name).metadata.deletionTimestamp).toBeDefined();
    expect(claim(w, t.claimName).metadata.deletionTimestamp).toBeUndefined();
    expect(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']).toBeUndefined();
    expect(taints(w)).not.toContainEqual(expect.objectContaining(DISRUPTED));
    expect(condition(w, t.claimName, 'DisruptionReason')).toBeUndefined();
    const failed = events(w).find(
      (e) => e.object === `NodeClaim/${t.claimName}` && e.reason === 'DisruptionFailed',
    );
    expect(failed).toMatchObject({ type: 'Warning' });
    expect(failed?.message).toBe(
      `disruption command reached timeout after 10m waiting for replacements to initialize; deleted ${name}, which never initialized`,
    );
  });

  // queue.go `waitOrTerminate`: a replacement deleted before it initialized ("replacement was
  // deleted", after an ICE) is unrecoverable; `Reconcile` untaints the candidates.
  it('cancels a started command at once when EC2 has no capacity for its replacement, and lifts the taint', async () => {
    const t = await disruptionWorld([bound('web-1')], labelled);
    w = t.pw;
    const recorded = (await t.disrupt())?.steps[0] ?? '';
    const id = JSON.parse(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']).id;
    expect(recorded).toBe('recorded drift');
    w.world.fakes.ec2.capacity.setCapacity({}, 0);
    w.world.time.advance(20_000);
    expect((await t.disrupt())?.steps[0]).toBe(`cancelled ${id}`);
    // The refused replacement is being deleted; nothing else was launched.
    const kept = claims(w).filter((c) => !c.metadata.deletionTimestamp);
    expect(kept.map((c) => c.metadata.name)).toEqual([t.claimName]);
    expect(claim(w, t.claimName).metadata.annotations['podlift.dev/disruption-command']).toBeUndefined();
    expect(taints(w)).not.toContainEqual(expect.objectContaining(DISRUPTED));
    expect(condition(w, t.claimName, 'DisruptionReason')).toBeUndefined();
  });

  // terminator.go `Drain`: Karpenter deletes the candidate and its drain waits for the budget.
  // podlift waits before deleting, its replacement kept, rather than cancel and leave it empty.
  describe('a PodDisruptionBudget at 0 once the replacement is up', () => {
    const started = async () => {
      const web = bound('web-1');
      const t = await disruptionWorld(
        [{ ...web, metadata: { ...web.metadata, labels: { app: 'web' } } }],
        labelled,
      );
      w = t.pw;
      await t.disrupt();
      w.world.time.advance(20_000);
      const id = ((await t.disrupt())?.steps[0] ?? '').replace('replacing ', '');
      const store = w.world.fakes.kube.store;
      store.seed(
        'poddisruptionbudgets.policy',
        podDisruptionBudgetManifest({ name: 'web', app: 'web', minAvailable: 1, expectedPods: 1 }),
      );
      const replacement = claims(w).find(
        (c) => c.metadata.annotations?.['podlift.dev/replaces'] === id,
      ) as Json;
      const initialized = { type: 'Initialized', status: 'True', reason: 'Initialized', message: '' };
      store.updateStatus('nodeclaims.karpenter.sh', {
        ...replacement,
        status: {
          ...replacement.status,
          conditions: [
            ...(replacement.status.conditions ?? []),
            { ...initialized, lastTransitionTime: kubeNow() },
          ],
        },
      });
      return { t, id, replacement: replacement.metadata.name as string, store };
    };
    const kubeNow = () => new Date(w?.world.time.now() ?? 0).toISOString().replace('.000', '');
    const pending = (name: string) => claim(w as ProvisionerWorld, name).metadata.deletionTimestamp;

    it('waits, the candidate tainted and the replacement kept, then deletes once the budget allows', async () => {
      const { t, id, replacement, store } = await started();
      w = t.pw;
      expect((await t.disrupt())?.steps[0]).toBe(`waiting ${id}`);
      w.world.time.advance(60_000);
      expect((await t.disrupt())?.steps[0]).toBe(`waiting ${id}`);
      expect(pending(t.claimName)).toBeUndefined();
      expect(pending(replacement)).toBeUndefined();
      expect(taints(w)).toContainEqual(expect.objectContaining(DISRUPTED));
      expect(t.seen.lines.some((l) => l.message.includes('waits for a PodDisruptionBudget'))).toBe(true);
      store.delete('poddisruptionbudgets.policy', 'web', { namespace: 'default' });
      expect((await t.disrupt())?.steps[0]).toBe(`executed ${id}`);
      expect(pending(t.claimName)).toBeDefined();
      expect(pending(replacement)).toBeUndefined();
    });

    it('is cancelled when its replacement is deleted while it waits, and says the replacement had initialized', async () => {
      const { t, id, replacement, store } = await started();
      w = t.pw;
      expect((await t.disrupt())?.steps[0]).toBe(`waiting ${id}`);
      store.delete('nodeclaims.karpenter.sh', replacement);
      expect((await t.disrupt())?.steps[0]).toBe(`cancelled ${id}`);
      expect(pending(t.claimName)).toBeUndefined();
      expect(taints(w)).not.toContainEqual(expect.objectContaining(DISRUPTED));
      const said = t.seen.lines.find((l) => l.message.startsWith('a replacement was deleted'));
      expect(said?.fields.replacements).toEqual([{ nodeClaim: replacement, initialized: true }]);
    });

    it('gives up at the timeout, keeps the initialized replacement, and names the budget', async () => {
      const { t, id, replacement } = await started();
      w = t.pw;
      w.world.time.advance(10 * 60_000 - 1_000);
      expect((await t.disrupt())?.steps[0]).toBe(`waiting ${id}`);
      w.world.time.advance(2_000);
      expect((await t.disrupt())?.steps[0]).toBe(`timed out ${id}`);
      expect(pending(t.claimName)).toBeUndefined();
      expect(pending(replacement)).toBeUndefined();
      expect(taints(w)).not.toContainEqual(expect.objectContaining(DISRUPTED));
      const failed = events(w).find(
        (e) => e.object === `NodeClaim/${t.claimName}` && e.reason === 'DisruptionFailed',
      );
      expect(failed?.message).toBe(
        'disruption command reached timeout after 10m waiting to delete its candidates: ' +
          'PodDisruptionBudget default/web allows no eviction of pod default/web-1',
      );
    });
  });

  it('keeps a command whose replacement launch was throttled: the NodeClaim stays for the next run', async () => {
    const t = await disruptionWorld([bound('web-1')], labelled);
    w = t.pw;
    await t.disrupt();
    w.world.fakes.ec2.throttle('CreateFleet', 50);
    w.world.time.advance(20_000);
    const step = (await settle(w.world, t.disrupt()))?.steps[0] ?? '';
    expect(step).toMatch(/^replacing /);
    const id = step.replace('replacing ', '');
    expect(claims(w).filter((c) => c.metadata.annotations?.['podlift.dev/replaces'] === id)).toHaveLength(1);
    expect(taints(w)).toContainEqual(expect.objectContaining(DISRUPTED));
  });

  it('removes the taint and DisruptionReason a command that is no more left behind', async () => {
    const t = await disruptionWorld([bound('web-1')], labelled);
    w = t.pw;
    await t.disrupt();
    w.world.time.advance(20_000);
    await t.disrupt();
    // The command's record is gone (a run stopped half-way through cancelling it).
    const stored = claim(w, t.claimName);
    const { 'podlift.dev/disruption-command': _, ...kept } = stored.metadata.annotations;
    w.world.fakes.kube.store.update('nodeclaims.karpenter.sh', {
      ...stored,
      metadata: { ...stored.metadata, annotations: kept },
    });
    await t.disrupt();
    expect(taints(w)).not.toContainEqual(expect.objectContaining(DISRUPTED));
    expect(condition(w, t.claimName, 'DisruptionReason')).toBeUndefined();
  });

  it('leaves the disrupted taint an interruption put on its node', async () => {
    const t = await disruptionWorld([bound('web-1')], labelled);
    w = t.pw;
    await t.disrupt();
    w.world.time.advance(20_000);
    await t.disrupt();
    const stored = claim(w, t.claimName);
    const { 'podlift.dev/disruption-command': _, ...kept } = stored.metadata.annotations;
    w.world.fakes.kube.store.update('nodeclaims.karpenter.sh', {
      ...stored,
      metadata: { ...stored.metadata, annotations: { ...kept, 'podlift.dev/interruption': '{}' } },
    });
    await t.disrupt();
    expect(taints(w)).toContainEqual(expect.objectContaining(DISRUPTED));
  });
});
