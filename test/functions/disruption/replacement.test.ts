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
