import { describe, expect, it } from 'vitest';
import { doNotDisruptActive, podDisruptable } from '../../../shared/core/model/do-not-disrupt';
import { pod } from '../../../sim/world/builders';

// Cases from kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go `IsDoNotDisruptActive` and
// its scheduling_test.go: "true" always, a positive Go duration from status.startTime (fail safe
// without one), anything else as if absent.
const T0 = Date.UTC(2026, 0, 1);
const started = (value: string | undefined, startTime?: number) => ({
  ...pod({ name: 'p' }),
  ...(value !== undefined ? { annotations: { 'karpenter.sh/do-not-disrupt': value } } : {}),
  ...(startTime !== undefined ? { startTime: new Date(startTime).toISOString() } : {}),
});

describe('doNotDisruptActive', () => {
  it.each([
    ['no annotation', undefined, T0, T0 + 1, false],
    ['"true"', 'true', T0, T0 + 1e9, true],
    ['"false"', 'false', T0, T0, false],
    ['"TRUE" is not "true" and not a duration', 'TRUE', T0, T0, false],
    ['a duration not yet over', '1h', T0, T0 + 3_599_999, true],
    ['a duration just over', '1h', T0, T0 + 3_600_000, false],
    ['a compound Go duration', '1h30m', T0, T0 + 5_399_000, true],
    ['a duration without a start time (fail safe)', '5m', undefined, T0 + 1e9, true],
    ['a zero duration', '0s', T0, T0, false],
    ['a negative duration', '-5m', T0, T0, false],
    ['garbage', 'soon', T0, T0, false],
    // Without a start time only a positive duration fails safe: the rest is as if absent.
    ['garbage without a start time', 'soon', undefined, T0, false],
    ['a zero duration without a start time', '0s', undefined, T0, false],
    ['a negative duration without a start time', '-5m', undefined, T0, false],
  ])('%s', (_case, value, startTime, now, active) => {
    expect(doNotDisruptActive(started(value, startTime), now)).toBe(active);
  });
});

describe('podDisruptable', () => {
  it('lets a terminating pod go whatever it says, and holds an active protected one', () => {
    expect(podDisruptable({ ...started('true', T0), deleting: true }, T0)).toBe(true);
    expect(podDisruptable(started('true', T0), T0)).toBe(false);
    expect(podDisruptable(started('1m', T0), T0 + 60_000)).toBe(true);
  });
});
