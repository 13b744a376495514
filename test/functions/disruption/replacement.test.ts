import type { CreateFleetCommandInput } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProvisionerWorld } from '../provisioner/world';
import { bound, claim, claims, disruptionWorld, type Json } from './world';

// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go `computeConsolidation`:
// the replacement's InstanceTypeOptions are cut to those cheaper than the candidate
// (`RemoveInstanceTypeOptionsByPriceAndMinValues`) before the command is queued, and the queue
// launches exactly that NodeClaim (queue.go `StartCommand` → `CreateNodeClaims(cmd.Replacements)`).

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const TYPES = [
  't3.medium',
  'c5.large',
  'm5.large',
  'r5.large',
  'c5.xlarge',
  'm5.xlarge',
  'r5.xlarge',
  'm5.2xlarge',
];
const onDemandPrice: Record<string, number> = {
  't3.medium': 0.0416,
  'c5.large': 0.085,
  'm5.large': 0.096,
  'r5.large': 0.126,
  'c5.xlarge': 0.17,
  'm5.xlarge': 0.192,
  'r5.xlarge': 0.252,
  'm5.2xlarge': 0.384,
};

describe('disruption: the replacement launched is the one decided', () => {
  it('offers CreateFleet only the instance types cheaper than the candidate, and pins the NodeClaim to them', async () => {
    const t = await disruptionWorld([bound('web-1')], (s) => s, TYPES);
    w = t.pw;
    // The candidate was bought at $0.10/h: r5.large and up are dearer and must not launch.
    const store = w.world.fakes.kube.store;
    const candidate = claim(w, t.claimName);
    store.update('nodeclaims.karpenter.sh', {
      ...candidate,
      metadata: {
        ...candidate.metadata,
        annotations: { ...candidate.metadata.annotations, 'podlift.dev/hourly-price': '0.1' },
      },
    });
    expect((await t.disrupt())?.steps).toEqual(['recorded consolidation']);
    w.world.time.advance(20_000);
    expect((await t.disrupt())?.steps[0]).toMatch(/^replacing /);
    const fleets = w.world.fakes.ec2.calls
      .filter((c) => c.operation === 'CreateFleet')
      .map((c) => c.input as CreateFleetCommandInput);
    expect(fleets).toHaveLength(2); // the seed node's, then the replacement's
    const offered = fleets
      .slice(1)
      .flatMap((f) =>
        (f.LaunchTemplateConfigs ?? []).flatMap((c) =>
          (c.Overrides ?? []).map((o) => o.InstanceType as string),
        ),
      );
    expect(offered.length).toBeGreaterThan(0);
    expect(new Set(offered)).toStrictEqual(new Set(['t3.medium', 'c5.large', 'm5.large']));
    expect(offered.every((type) => (onDemandPrice[type] ?? Number.POSITIVE_INFINITY) < 0.1)).toBe(true);
    const replacement = claims(w).find((c) => c.metadata.annotations?.['podlift.dev/replaces'] !== undefined);
    const pinned = ((replacement?.spec.requirements ?? []) as Json[]).find(
      (r) => r.key === 'node.kubernetes.io/instance-type',
    );
    expect(new Set(pinned?.values)).toStrictEqual(new Set(offered));
  });
});

describe('disruption: a global consolidation launches its several replacements', () => {
  /** A pod no other `pair` pod may share a node with: two of them need two new nodes. */
  const pair = (name: string) => {
    const pod = bound(name) as Json;
    return {
      ...pod,
      metadata: { ...pod.metadata, labels: { app: 'pair' } },
      spec: {
        ...pod.spec,
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'pair' } } },
            ],
          },
        },
      },
    };
  };
  /** Records `replacements` on the one node's consolidation command, as decide.ts would. */
  const record = (pw: ProvisionerWorld, name: string, replacements?: number) => {
    const store = pw.world.fakes.kube.store;
    const stored = claim(pw, name);
    const command = {
      id: `consolidation-${name}-0`,
      method: 'consolidation',
      reason: 'Underutilized',
      decidedAt: new Date(pw.world.time.now()).toISOString(),
      candidates: [name],
      replace: true,
      ...(replacements ? { replacements } : {}),
      savings: 0.01,
    };
    store.update('nodeclaims.karpenter.sh', {
      ...stored,
      metadata: {
        ...stored.metadata,
        annotations: {
          ...stored.metadata.annotations,
          'podlift.dev/hourly-price': '0.1',
          'podlift.dev/disruption-command': JSON.stringify(command),
        },
      },
    });
  };
  const replacements = (pw: ProvisionerWorld) =>
    claims(pw).filter((c) => c.metadata.annotations?.['podlift.dev/replaces'] !== undefined);

  it('launches both replacements the command was decided with, each below its half of the $0.10/h', async () => {
    const t = await disruptionWorld([pair('web-1'), pair('web-2')], (s) => s, TYPES);
    w = t.pw;
    record(w, t.claimName, 2);
    w.world.time.advance(20_000);
    expect((await t.disrupt())?.steps[0]).toMatch(/^replacing /);
    const launched = replacements(w);
    expect(launched).toHaveLength(2);
    // Two t3.medium ($0.0416/h each) for the two pods; each share is $0.05/h, so only t3.medium.
    for (const r of launched) {
      const pinned = ((r.spec.requirements ?? []) as Json[]).find(
        (q) => q.key === 'node.kubernetes.io/instance-type',
      );
      expect(pinned?.values).toStrictEqual(['t3.medium']);
    }
  });

  it('cancels a Karpenter consolidation (one replacement) whose pods now need two: validation finds it, none launched', async () => {
    const t = await disruptionWorld([pair('web-1'), pair('web-2')], (s) => s, TYPES);
    w = t.pw;
    record(w, t.claimName);
    w.world.time.advance(20_000);
    expect((await t.disrupt())?.steps[0]).toMatch(/^cancelled /);
    expect(replacements(w)).toHaveLength(0);
  });
});
