import { describe, expect, it } from 'vitest';
import { ISSUE_CHURN, PLAIN_WINDOW, quantile, runWatcherChurn } from '../../bench/watcher/churn';

// The real watcher on a virtual clock, fed 50 pods marked unschedulable, 20 bound pods deleted
// and 2 nodes changed every second (spread over the second as a busy API server streams them).
describe('Watcher under churn', () => {
  it('publishes every pending pod within 4 s (p50 2 s) in 15 PutEvents a minute, capacity changes riding along', async () => {
    const outcome = await runWatcherChurn({ settings: {}, rate: ISSUE_CHURN, seconds: 60 });
    expect(outcome.unpublished).toBe(0);
    expect(outcome.hintLatenciesMs).toHaveLength(60 * ISSUE_CHURN.podsMarkedPerSecond);
    expect(quantile(outcome.hintLatenciesMs, 1)).toBeLessThanOrEqual(4000);
    expect(quantile(outcome.hintLatenciesMs, 0.5)).toBeLessThanOrEqual(2000);
    expect(outcome.putEventsPerMinute).toBe(15);
    expect(outcome.eventsPerMinute.PodsPending).toBe(15);
    // Capacity's 10 s maximum falls before every second PodsPending call: one ride in two.
    expect(outcome.eventsPerMinute.CapacityChanged).toBeGreaterThanOrEqual(6);
    expect(outcome.eventsPerMinute.CapacityChanged).toBeLessThanOrEqual(8);
    // Every capacity change still reaches the bus, counted, in fewer events.
    expect(outcome.capacityChangesPublished).toBe(outcome.capacityChangesMade);
  });

  it('needs a call of its own for each CapacityChanged event when capacity does not ride along', async () => {
    const outcome = await runWatcherChurn({
      settings: { capacityRidesAlong: false },
      rate: ISSUE_CHURN,
      seconds: 60,
    });
    expect(outcome.putEventsPerMinute).toBe(21);
    expect(outcome.capacityChangesPublished).toBe(outcome.capacityChangesMade);
  });

  it("made pods wait for Karpenter's 10 s maximum with the plain window (what the leading edge fixes)", async () => {
    const outcome = await runWatcherChurn({ settings: PLAIN_WINDOW, rate: ISSUE_CHURN, seconds: 60 });
    expect(quantile(outcome.hintLatenciesMs, 0.5)).toBeGreaterThanOrEqual(4900);
    expect(quantile(outcome.hintLatenciesMs, 0.99)).toBeGreaterThanOrEqual(9800);
    expect(outcome.putEventsPerMinute).toBe(12);
  });

  it('publishes a pending pod on a quiet cluster at once', async () => {
    const quiet = { podsMarkedPerSecond: 1, podsDeletedPerSecond: 0, nodesChangedPerSecond: 0 };
    // The first goes at once; one pod a second is not quiet for 4 s, so each later one waits for
    // the idle second that follows it.
    const steady = await runWatcherChurn({ settings: {}, rate: quiet, seconds: 20, warmUpSeconds: 0 });
    expect(steady.hintLatenciesMs[0]).toBe(0);
    expect(quantile(steady.hintLatenciesMs, 1)).toBeLessThanOrEqual(1000);
  });
});
