import { afterEach, describe, expect, it } from 'vitest';
import { withClusterLease } from '../../functions/lease';
import { runtimeOf } from '../../functions/runtime';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { type ClusterWorld, clusterWorld } from '../../sim/world/cluster-world';

let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const context = (id: string, remainingMs = 60_000) => ({
  awsRequestId: id,
  getRemainingTimeInMillis: () => remainingMs,
});

describe('runtimeOf and an invocation', () => {
  it('names the Lease holder after the loop and request, and tags every line with the correlation id', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large'] });
    const seen = new RecordingObservability();
    const runtime = runtimeOf('provisioner', world.ports, world.time, seen.log, seen.metricsPort);

    const invocation = runtime.begin(context('req-1'), 'event-9');
    invocation.log.info('planned', { pods: 3 });

    expect(invocation.holder).toBe('provisioner/req-1');
    expect(invocation.deadline).toBe(world.time.now() + 55_000);
    expect(seen.lines).toEqual([
      { level: 'info', message: 'planned', fields: { correlationId: 'event-9', pods: 3 } },
    ]);
  });
});

describe('withClusterLease', () => {
  it('runs one of two contenders, releases when done, and counts the one that yielded', async () => {
    world = await clusterWorld({ instanceTypes: ['m5.large'] });
    const seen = new RecordingObservability();
    const runtime = runtimeOf('disruption', world.ports, world.time, seen.log, seen.metricsPort);
    const first = runtime.begin(context('a'));
    const second = runtime.begin(context('b'));

    const outcome = await withClusterLease(world.ports.lease, first, async () => {
      const inner = await withClusterLease(world!.ports.lease, second, async () => 'second ran');
      return inner;
    });

    expect(outcome).toEqual({ ran: true, result: { ran: false, holder: 'disruption/a' } });
    expect(seen.total('LeaseHeldElsewhere')).toBe(1);
    const after = await withClusterLease(world.ports.lease, second, async () => 'second ran');
    expect(after).toEqual({ ran: true, result: 'second ran' });
  });
});
