import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../../sim/scenario/load';
import { runScenario } from '../../../sim/scenario/run';
import type { Simulation } from '../../../sim/world/simulation';
import { auditedIdentities, type Use, unusedGrants, usesIn } from './rbac-usage';

// Every scenario under examples/scenarios is played end to end, and each of its expectations
// must hold: the examples are the simulator's guarantees, not only its documentation.
const dir = 'examples/scenarios';
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('example scenarios', () => {
  it('are each described in docs/simulator.md', () => {
    const page = readFileSync('docs/simulator.md', 'utf8');
    expect(files.filter((f) => !page.includes(f))).toEqual([]);
  });

  it('include one per guarantee the docs list', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'budget-schedule-names.yaml',
        'cancelled-command-untaints.yaml',
        'consolidate-after.yaml',
        'consolidatable-wakeup.yaml',
        'consolidation-counts-deleting-nodes-pods.yaml',
        'consolidation-counts-pending-pods.yaml',
        'consolidation-same-type.yaml',
        'disrupted-taint-keeps-late-pods-off.yaml',
        'demo.yaml',
        'do-not-disrupt-expiry.yaml',
        'drift-past-do-not-disrupt.yaml',
        'ice-replan-keeps-capacity-whole.yaml',
        'impaired-instance.yaml',
        'launch-price-band.yaml',
        'leaked-instance.yaml',
        'never-registers.yaml',
        'node-repair-spares-booting-nodes.yaml',
        'nominated-on-existing-capacity.yaml',
        'relaunch-uses-recorded-options.yaml',
        'replacement-never-initializes.yaml',
        'spot-to-spot-off.yaml',
        'static-drift.yaml',
        'spot-reclaim-kubelet-dies.yaml',
        'windows-beside-linux.yaml',
        'stuck-finalizer.yaml',
        'zonal-spread-after-ice.yaml',
      ]),
    );
  });

  // What every identity did in the scenarios, for the least-privilege check after them.
  const uses: Use[] = [];
  const played = new Set<string>();

  for (const file of files) {
    it(`${file} plays to the end with every expectation held, and RBAC refuses nothing`, async () => {
      const scenario = loadScenarioFile(`${dir}/${file}`);
      let sim: Simulation | undefined;
      const record = await runScenario(scenario, { onProgress: (_at, _total, s) => (sim = s) });
      const requests = sim?.world.fakes.kube.requests ?? [];
      // The API server checks every function's and the watcher's request against manifests/:
      // a grant missing there is a 403 here, whether or not the loop worked around it.
      const refused = requests.filter((r) => r.status === 403).map((r) => `${r.user} ${r.method} ${r.path}`);
      expect([...new Set(refused)]).toEqual([]);
      uses.push(...usesIn(requests));
      played.add(file);
      expect(record.durationMs).toBe(scenario.duration);
      const failed = record.expectations.filter((e) => !e.held).map((e) => `${e.description} (${e.detail})`);
      expect(failed).toEqual([]);
      expect(record.expectations.length).toBeGreaterThan(0);
    }, 240_000);
  }

  // Least privilege: every right manifests/ grants an identity was used by it in the scenarios.
  it.for(auditedIdentities())('$label used every right manifests/ grants it', (identity, ctx) => {
    if (played.size < files.length) ctx.skip('only with every scenario played');
    expect(unusedGrants(identity, uses, CODE_PATHS_NOT_PLAYED[identity.label])).toEqual([]);
  });
});

/**
 * Grants used by code the simulated cluster cannot reach: the fake API server serves no
 * PersistentVolumes or PersistentVolumeClaims. The provisioner lists both for the zones a pending
 * pod's volumes pin it to (shared/kube/volume-zones.ts `readVolumeZones`); termination lists
 * claims to tell which VolumeAttachments a drain leaves (shared/kube/volume-attachments.ts
 * `readClaimedVolumes`).
 */
const CODE_PATHS_NOT_PLAYED: Readonly<Record<string, readonly string[]>> = {
  'podlift:functions': ['list core/persistentvolumes', 'list core/persistentvolumeclaims'],
  'podlift:termination': ['list core/persistentvolumeclaims'],
};
