import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Invocation } from '../../functions/invocation';
import { checkpoint, LEASE_TIMING, withClusterLease } from '../../functions/lease';
import { sleep, type Time } from '../../shared/core/ports/time';
import { ClusterLease } from '../../shared/kube/cluster-lease';
import { parseKubeTime } from '../../shared/kube/lease-object';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { VirtualTime } from '../../sim/virtual-time';
import { eventually } from '../eventually';
import { type Harness, startHarness } from '../kube/harness';

const LEASES = 'leases.coordination.k8s.io';
const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/podlift/leases/podlift';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.server.close());

const stored = () => h.server.store.get(LEASES, 'podlift', 'podlift');
const storedSpec = () =>
  stored().spec as { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };

/** An invocation of `holder` on `time` (the harness's clock unless a dead process's is given). */
function invocation(holder: string, time: Time = h.clock) {
  const seen = new RecordingObservability();
  const inv: Invocation = {
    time,
    holder,
    correlationId: holder,
    deadline: h.clock.now() + 600_000,
    log: seen.log,
    metrics: seen.metricsPort,
  };
  return { inv, seen };
}

/** The longest jump of the virtual clock in {@link drive}. */
const MAX_STEP_MS = 500;

/**
 * Settles `run` while moving the virtual clock on for it, as the simulator does: whenever the
 * fake API server has seen no request for a few real milliseconds, the run is waiting on a
 * timer, and the clock moves towards the next one — by at most {@link MAX_STEP_MS}, so a renewal
 * whose round trip is slow on a loaded machine is not overtaken by its own renew deadline (8 s
 * after it starts) in one jump. Returns the run's value.
 */
async function drive<T>(run: Promise<T>): Promise<T> {
  let done = false;
  const tracked = run.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  let last = h.server.requests.length;
  let idle = 0;
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const now = h.server.requests.length;
    idle = now === last ? idle + 1 : 0;
    last = now;
    const [next] = h.clock.delays();
    if (!done && idle >= 5 && next !== undefined) {
      await h.clock.advanceAsync(Math.min(Math.max(next, 0), MAX_STEP_MS));
      idle = 0;
    }
  }
  return tracked;
}

const leasePuts = () => h.server.requests.filter((r) => r.method === 'PUT' && r.path === LEASE_PATH);

describe('withClusterLease: the hold', () => {
  it('takes a short Lease, renews it every retry period across many durations, and refuses contenders meanwhile', async () => {
    const { inv, seen } = invocation('disruption/long');
    const contender = new ClusterLease(h.api, h.clock);
    const refused: boolean[] = [];
    const started = h.clock.now();

    const run = await drive(
      withClusterLease(new ClusterLease(h.api, h.clock), inv, async (held) => {
        expect(storedSpec().leaseDurationSeconds).toBe(LEASE_TIMING.durationSeconds);
        for (let i = 0; i < 4; i++) {
          await sleep(held.time, 16_000);
          checkpoint(held);
          refused.push(!(await contender.acquire('provisioner/other', 15)).acquired);
        }
        return 'done';
      }),
    );

    expect(run).toEqual({ ran: true, result: 'done' });
    expect(h.clock.now() - started).toBeGreaterThanOrEqual(64_000);
    expect(refused).toEqual([true, true, true, true]);
    // 64 s at one renewal per 2 s, then the release.
    expect(leasePuts().length).toBeGreaterThanOrEqual(32);
    expect(seen.total('LeaseLost')).toBe(0);
    expect(storedSpec().holderIdentity).toBeUndefined();
    expect(h.clock.pending).toBe(0);
  });

  it("lets another invocation take a crashed holder's Lease once its duration has passed", async () => {
    // The crashed process's timers never fire again: it renews nothing.
    const dead = new VirtualTime(h.clock.now());
    const crashed = invocation('provisioner/crashed', { now: () => h.clock.now(), ...timersOf(dead) });
    void withClusterLease(new ClusterLease(h.api, h.clock), crashed.inv, () => new Promise<never>(() => {}));
    await eventually(() => expect(storedSpec().holderIdentity).toBe('provisioner/crashed'));
    const taken = parseKubeTime(storedSpec().renewTime) ?? Number.NaN;
    const next = invocation('interruption/next');

    h.clock.advance(taken + LEASE_TIMING.durationSeconds * 1000 - 1 - h.clock.now());
    const early = await withClusterLease(new ClusterLease(h.api, h.clock), next.inv, async () => 'ran');
    expect(early).toEqual({ ran: false, holder: 'provisioner/crashed' });
    h.clock.advance(1);
    const late = await withClusterLease(new ClusterLease(h.api, h.clock), next.inv, async () => 'ran');
    expect(late).toEqual({ ran: true, result: 'ran' });
    expect(LEASE_TIMING.durationSeconds).toBeLessThanOrEqual(15);
  });

  it('releases the Lease and clears its timers when the body throws', async () => {
    const { inv } = invocation('provisioner/throws');
    const failing = withClusterLease(new ClusterLease(h.api, h.clock), inv, async () => {
      throw new Error('EC2 said no');
    });
    await expect(failing).rejects.toThrow('EC2 said no');
    expect(storedSpec().holderIdentity).toBeUndefined();
    expect(h.clock.pending).toBe(0);
  });
});

describe('withClusterLease: losing the hold', () => {
  it('stops the body before its next act when a renewal finds the Lease taken over', async () => {
    const { inv, seen } = invocation('disruption/a');
    const acts: string[] = [];
    const run = drive(
      withClusterLease(new ClusterLease(h.api, h.clock), inv, async (held) => {
        acts.push('first');
        await sleep(held.time, 5_000);
        checkpoint(held);
        acts.push('second');
        return 'finished';
      }),
    );
    // Another writer takes the Lease over (a contender whose clock ran ahead, an operator).
    await eventually(() => expect(storedSpec().holderIdentity).toBe('disruption/a'));
    const lease = stored();
    h.server.store.update(LEASES, {
      ...lease,
      spec: { ...(lease.spec as object), holderIdentity: 'intruder' },
    });

    expect(await run).toEqual({ ran: false, lost: true, holder: 'intruder' });
    expect(acts).toEqual(['first']);
    expect(seen.total('LeaseLost')).toBe(1);
    expect(seen.lines.find((l) => l.message.startsWith('lost the cluster Lease'))?.fields).toMatchObject({
      why: 'taken over by intruder',
    });
    // The intruder's hold is not released by the loser.
    expect(storedSpec().holderIdentity).toBe('intruder');
    expect(h.clock.pending).toBe(0);
  });

  it('stops the body once no renewal succeeded within the renew deadline, before anybody may take over', async () => {
    const { inv, seen } = invocation('provisioner/b');
    const acts: number[] = [];
    let lostAt: number | undefined;
    const started = h.clock.now();
    h.server.failNext('update', LEASE_PATH, 503, { times: 1_000 });
    const run = await drive(
      withClusterLease(new ClusterLease(h.api, h.clock), inv, async (held) => {
        held.signal?.addEventListener('abort', () => {
          lostAt = h.clock.now();
        });
        for (let i = 0; i < 30; i++) {
          checkpoint(held);
          acts.push(h.clock.now() - started);
          await sleep(held.time, 1_000);
        }
        return 'finished';
      }),
    );

    expect(run).toEqual({ ran: false, lost: true });
    expect((lostAt ?? Number.NaN) - started).toBe(LEASE_TIMING.renewDeadlineMs);
    expect(Math.max(...acts)).toBeLessThan(LEASE_TIMING.renewDeadlineMs);
    expect(seen.total('LeaseLost')).toBe(1);
    // The renewals and the release were all refused: the Lease lapses on its own.
    expect(seen.total('LeaseReleaseFailed')).toBe(1);
    expect(storedSpec().holderIdentity).toBe('provisioner/b');
    expect(h.clock.pending).toBe(0);
  });
});

describe('withClusterLease: the release', () => {
  it('tries a refused release again', async () => {
    const { inv, seen } = invocation('provisioner/c');
    const run = drive(
      withClusterLease(new ClusterLease(h.api, h.clock), inv, async () => {
        h.server.failNext('update', LEASE_PATH, 503, { times: 2 });
        return 'done';
      }),
    );
    expect(await run).toEqual({ ran: true, result: 'done' });
    expect(leasePuts().map((r) => r.status)).toEqual([503, 503, 200]);
    expect(storedSpec().holderIdentity).toBeUndefined();
    expect(seen.total('LeaseReleaseFailed')).toBe(0);
  });

  it('leaves a Lease whose release was refused every time to lapse within the duration', async () => {
    const { inv, seen } = invocation('provisioner/d');
    const acquiredAt = h.clock.now();
    const run = drive(
      withClusterLease(new ClusterLease(h.api, h.clock), inv, async () => {
        h.server.failNext('update', LEASE_PATH, 500, { times: 100 });
        return 'done';
      }),
    );
    expect(await run).toEqual({ ran: true, result: 'done' });
    expect(leasePuts().map((r) => r.status)).toEqual([500, 500, 500, 500]);
    expect(seen.total('LeaseReleaseFailed')).toBe(1);
    expect(
      seen.linesSaying('releasing the cluster Lease failed; it lapses on its own')[0]?.fields,
    ).toMatchObject({
      holder: 'provisioner/d',
      attempts: 4,
    });
    h.server.clearFaults();

    const next = invocation('interruption/e');
    h.clock.advance(acquiredAt + LEASE_TIMING.durationSeconds * 1000 - 1 - h.clock.now());
    expect(await withClusterLease(new ClusterLease(h.api, h.clock), next.inv, async () => 'ran')).toEqual({
      ran: false,
      holder: 'provisioner/d',
    });
    h.clock.advance(1);
    expect(await withClusterLease(new ClusterLease(h.api, h.clock), next.inv, async () => 'ran')).toEqual({
      ran: true,
      result: 'ran',
    });
  });
});

/** The timers of `time` alone (a Time built around another clock). */
function timersOf(time: VirtualTime) {
  return {
    setTimeout: (callback: () => void, ms: number) => time.setTimeout(callback, ms),
    clearTimeout: (handle: { timerId: number }) => time.clearTimeout(handle),
  };
}
