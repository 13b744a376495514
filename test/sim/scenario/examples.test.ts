import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../../sim/scenario/load';
import { runScenario } from '../../../sim/scenario/run';

// Every scenario under examples/scenarios is played end to end, and each of its expectations
// must hold: the examples are the simulator's guarantees, not only its documentation.
const dir = 'examples/scenarios';
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('example scenarios', () => {
  it('include one per guarantee the README lists', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'demo.yaml',
        'do-not-disrupt-expiry.yaml',
        'ice-replan-keeps-capacity-whole.yaml',
        'impaired-instance.yaml',
        'leaked-instance.yaml',
        'never-registers.yaml',
        'relaunch-uses-recorded-options.yaml',
        'spot-reclaim-kubelet-dies.yaml',
        'stuck-finalizer.yaml',
        'zonal-spread-after-ice.yaml',
      ]),
    );
  });

  for (const file of files) {
    it(`${file} plays to the end with every expectation held`, async () => {
      const scenario = loadScenarioFile(`${dir}/${file}`);
      const record = await runScenario(scenario);
      expect(record.durationMs).toBe(scenario.duration);
      const failed = record.expectations.filter((e) => !e.held).map((e) => `${e.description} (${e.detail})`);
      expect(failed).toEqual([]);
      expect(record.expectations.length).toBeGreaterThan(0);
    }, 240_000);
  }
});
