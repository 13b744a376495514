import { describe, expect, it, vi } from 'vitest';
import { METRICS, timeDecision } from '../../functions/observability';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';

describe('timeDecision', () => {
  it("records a decision's wall time and the CPU it spent, and returns what it decided", () => {
    const seen = new RecordingObservability();
    const decided = timeDecision(seen.metricsPort, () => {
      // Busy for about 20 ms of CPU: no waiting, so CPU and wall time are close.
      const until = process.cpuUsage().user + 20_000;
      let spins = 0;
      while (process.cpuUsage().user < until) spins++;
      return spins > 0 ? 'decided' : 'never';
    });
    expect(decided).toBe('decided');
    const [wall, cpu] = [METRICS.decisionTime, METRICS.decisionCpuTime].map(
      (name) => seen.metrics.find((m) => m.name === name)?.value ?? Number.NaN,
    );
    expect(seen.metrics.map((m) => m.unit)).toEqual(['Milliseconds', 'Milliseconds']);
    expect(cpu).toBeGreaterThanOrEqual(20);
    // Not compared with the CPU: process.cpuUsage counts every thread of the process (the
    // collector's, the test runner's), which on a loaded machine can spend more than the wall.
    expect(wall).toBeGreaterThan(0);
  });

  it('records a decision that waits at its wall time and only the CPU the process reports', () => {
    // The process's CPU is stubbed: a real one counts every thread (the collector's, the test
    // runner's), which on a loaded machine spent more than the 50 ms this decision waits.
    const usage = vi
      .spyOn(process, 'cpuUsage')
      .mockReturnValueOnce({ user: 10_000, system: 2_000 })
      .mockReturnValueOnce({ user: 2_000, system: 500 });
    const seen = new RecordingObservability();
    try {
      timeDecision(seen.metricsPort, () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50));
    } finally {
      usage.mockRestore();
    }
    const [wall, cpu] = [METRICS.decisionTime, METRICS.decisionCpuTime].map(
      (name) => seen.metrics.find((m) => m.name === name)?.value ?? Number.NaN,
    );
    expect(wall).toBeGreaterThanOrEqual(45);
    expect(cpu).toBe(2.5);
  });
});
