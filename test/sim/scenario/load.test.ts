import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, parseScenario, ScenarioError } from '../../../sim/scenario/load';

const base = `name: t\nduration: 5m\n`;

function problems(text: string): readonly string[] {
  try {
    parseScenario('bad.yaml', text);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message.startsWith('bad.yaml: invalid scenario')).toBe(true);
    return (error as ScenarioError).problems;
  }
  throw new Error('the scenario was accepted');
}

describe('scenario files', () => {
  it('accepts every example under examples/scenarios, and the large ones CI plays outside npm test', () => {
    for (const [dir, least] of [
      ['examples/scenarios', 3],
      ['examples/large', 1],
    ] as const) {
      const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
      expect(files.length).toBeGreaterThanOrEqual(least);
      for (const file of files)
        expect(loadScenarioFile(`${dir}/${file}`).manifests.length).toBeGreaterThan(0);
    }
  });

  it('reads durations in ms, s, m, h and plain seconds', () => {
    const s = parseScenario(
      'ok.yaml',
      `name: t\nduration: 1h30m\ntimeline:\n  - { at: 90, log: a }\n  - { at: 2m, log: b }\n  - { at: 250ms, log: c }\n`,
    );
    expect(s.duration).toBe(5_400_000);
    expect(s.timeline.map((t) => t.at)).toEqual([90_000, 120_000, 250]);
  });

  it('names the step, the field and the bad value', () => {
    const [problem] = problems(
      `${base}timeline:\n  - { at: 1m, scale: { deployment: web, replicas: four } }\n`,
    );
    expect(problem).toMatch(/^timeline\[0\] \(at 1m\)\.scale\.replicas: .* \(got "four"\)$/);
  });

  it('refuses a step with no action or two, an unknown field, and a step after the end', () => {
    expect(problems(`${base}timeline:\n  - { at: 1m }\n`)[0]).toMatch(
      /timeline\[0\] \(at 1m\): a step has exactly one action .* found none/,
    );
    expect(
      problems(`${base}timeline:\n  - { at: 1m, log: a, crash: { function: provisioner } }\n`)[0],
    ).toMatch(/found crash, log|found log, crash/);
    expect(
      problems(`${base}timeline:\n  - { at: 1m, scael: { deployment: web, replicas: 1 } }\n`)[0],
    ).toMatch(/timeline\[0\] \(at 1m\).*scael/);
    expect(problems(`${base}timeline:\n  - { at: 6m, log: late }\n`)[0]).toMatch(
      /^timeline\[0\]\.at: .*after the scenario's duration \(got "6m"\)/,
    );
  });

  it('reads rebalance and scheduledChange steps, with the scheduled change 10 minutes ahead by default', () => {
    const s = parseScenario(
      'ok.yaml',
      `${base}timeline:\n  - { at: 1m, rebalance: { spot: any } }\n` +
        `  - { at: 2m, scheduledChange: { instanceId: i-0abc } }\n` +
        `  - { at: 3m, scheduledChange: { instance: any, in: 2h, eventTypeCode: AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED } }\n`,
    );
    expect(s.timeline.map((t) => t.rebalance ?? t.scheduledChange)).toStrictEqual([
      { spot: 'any' },
      { instanceId: 'i-0abc', in: 600_000 },
      { instance: 'any', in: 7_200_000, eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED' },
    ]);
  });

  it('refuses a rebalance or scheduled change naming no instance or two, and a bad event type', () => {
    expect(problems(`${base}timeline:\n  - { at: 1m, rebalance: {} }\n`)[0]).toMatch(
      /^timeline\[0\] \(at 1m\)\.rebalance: name exactly one of nodeClaim, instanceId or spot: any/,
    );
    expect(
      problems(`${base}timeline:\n  - { at: 1m, scheduledChange: { instance: any, nodeClaim: a } }\n`)[0],
    ).toMatch(/scheduledChange: name exactly one of nodeClaim, instanceId or instance: any/);
    expect(
      problems(
        `${base}timeline:\n  - { at: 1m, scheduledChange: { instance: any, eventTypeCode: reboot } }\n`,
      )[0],
    ).toMatch(/scheduledChange\.eventTypeCode: an EC2 Health event type .* \(got "reboot"\)/);
  });

  it('refuses a bad duration and a missing name, naming each', () => {
    const found = problems(`duration: soon\n`);
    expect(found.some((p) => p.startsWith('name:'))).toBe(true);
    expect(found.some((p) => p.startsWith('duration:') && p.endsWith('(got "soon")'))).toBe(true);
  });

  it('names the file it cannot read', () => {
    expect(() => loadScenarioFile('no/such.yaml')).toThrow(
      /^no\/such\.yaml: invalid scenario\n {2}- cannot read the file/,
    );
  });

  it('accepts the fault steps and the recorded expectations, and names a step or expectation that is ambiguous', () => {
    const ok = parseScenario(
      'ok.yaml',
      `${base}timeline:
  - { at: 1m, kubeletDies: { instance: any } }
  - { at: 1m, neverRegisters: { instanceType: m5.large } }
  - { at: 1m, stuckFinalizer: { deployment: web } }
  - { at: 1m, leakInstance: {} }
  - { at: 1m, terminateInstance: { nodeClaim: default-abcde } }
  - { at: 1m, impairInstance: { instanceId: i-0123, systemStatus: impaired } }
  - { at: 1m, doNotDisrupt: { deployment: web } }
  - { at: 1m, volumeAttachment: { node: n1, count: 2, detachAfter: 10s } }
expect:
  pendingPods: { max: 0, names: [web] }
  nodesBy: [{ nodePool: default, capacityType: spot, min: 1 }]
  instances: [{ name: leaked, max: 0 }]
  noDoNotDisruptEvicted: true
  nodeClaimsFinalizedWithin: 5m
  events: [{ reason: DisruptionBlocked, kind: Node, min: 1 }]
  happened: [{ nodeClaimDeleted: true, notBefore: 2m }]
`,
    );
    expect(ok.timeline[3].leakInstance).toEqual({ instanceType: 'm5.large', taggedForCluster: true });
    expect(ok.timeline[5].impairInstance).toMatchObject({
      instanceStatus: 'impaired',
      systemStatus: 'impaired',
    });
    expect(ok.timeline[7].volumeAttachment?.detachAfter).toBe(10_000);
    expect(ok.expect.nodeClaimsFinalizedWithin).toBe(300_000);
    expect(
      problems(`${base}timeline:\n  - { at: 1m, kubeletDies: { node: n1, instance: any } }\n`)[0],
    ).toMatch(
      /^timeline\[0\] \(at 1m\)\.kubeletDies: name exactly one of node, nodeClaim, instanceId or instance: any/,
    );
    expect(problems(`${base}expect:\n  happened: [{ event: Evicted }]\n`)[0]).toMatch(
      /^expect\.happened\[0\]: give before, notBefore or both/,
    );
    expect(
      problems(`${base}manifests:\n  - { apiVersion: v1, kind: Secret, metadata: { name: s } }\n`)[0],
    ).toMatch(/^manifests\[0\]\.kind: a kind the simulator runs .* \(got "Secret"\)$/);
  });

  it('reads a kubeSchedulerDown step, bindings, and Events by object name and message', () => {
    const s = parseScenario(
      'ok.yaml',
      `${base}timeline:\n  - { at: 1m, kubeSchedulerDown: { for: 2m } }\nexpect:\n` +
        `  bindings: [{ pods: [late], instanceType: m5.xlarge, max: 0 }]\n` +
        `  events: [{ reason: Nominated, kind: Pod, name: late, message: "node/", min: 1 }]\n`,
    );
    expect(s.timeline[0].kubeSchedulerDown).toEqual({ for: 120_000 });
    expect(s.expect.bindings).toEqual([{ pods: ['late'], instanceType: 'm5.xlarge', max: 0 }]);
    expect(s.expect.events?.[0]).toMatchObject({ name: 'late', message: 'node/' });
    expect(problems(`${base}expect:\n  bindings: [{ pods: [], max: 0 }]\n`)[0]).toMatch(
      /^expect\.bindings\[0\]\.pods: /,
    );
    expect(problems(`${base}timeline:\n  - { at: 1m, kubeSchedulerDown: {} }\n`)[0]).toMatch(
      /^timeline\[0\] \(at 1m\)\.kubeSchedulerDown\.for: /,
    );
  });
});
