import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import { LABEL_ZONE } from '../../../shared/core/model/labels';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import type { SchedulingResult } from '../../../shared/core/scheduling/types';
import { nodePool, pods } from '../../../sim/world/builders';
import { catalog, defaultNodeClass, instanceType, realNode, schedulingInput } from './fixtures';

/**
 * Which zones a topology spread counts as domains: those the NodePool's instance types are
 * offered in, available now or not, as kubernetes-sigs/karpenter scheduling/topology.go
 * `buildDomainGroups` builds them from the instance types' requirements (whose zones are where
 * a type is offered: aws/karpenter-provider-aws instancetype/types.go `computeRequirements`).
 */

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const web = { app: 'web' };
const spreadOverZones = {
  maxSkew: 1,
  topologyKey: LABEL_ZONE,
  whenUnsatisfiable: 'DoNotSchedule' as const,
  labelSelector: { matchLabels: web },
};
const pool = nodePool({
  requirements: [
    { key: LABEL_ZONE, operator: 'In', values: ZONES },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
  ],
});

/** The instance types with every offering in `zone` refused. */
function refusedIn(zone: string) {
  const refused = new Set(
    catalog.zones
      .filter((z) => z === zone)
      .flatMap((z) => (['on-demand', 'spot'] as const).map((ct) => offeringKey('m5.large', z, ct))),
  );
  return resolveInstanceTypes(catalog, defaultNodeClass, refused);
}

function podsPerZone(r: SchedulingResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of r.nodeClaims) out[c.zone] = (out[c.zone] ?? 0) + c.pods.length;
  return out;
}

describe('topology spread: zone domains', () => {
  it('keeps a zone whose offerings are all refused as an empty domain: maxSkew holds the other zones at one pod more', () => {
    // topology_test.go "should not violate max-skew when unsat = do not schedule": the pods the
    // empty domain should take stay pending rather than raise the skew elsewhere.
    const r = schedule(
      schedulingInput({
        nodePools: [pool],
        instanceTypes: new Map([['default', refusedIn('us-east-1c')]]),
        pods: pods(6, { cpu: '1', labels: web, topologySpread: [spreadOverZones] }),
      }),
    );
    expect(podsPerZone(r)).toStrictEqual({ 'us-east-1a': 1, 'us-east-1b': 1 });
    expect(r.unschedulable).toHaveLength(4);
  });

  it('places the refused zone’s share there once its offerings return, ending 2/2/2', () => {
    const running = (zone: string, name: string) =>
      realNode({
        name,
        instanceType: 'm5.large',
        zone,
        nodePool: pool,
        pods: pods(1, { name: `${name}-pod`, cpu: '1', labels: web, nodeName: name }),
      });
    const nodes = [
      running('us-east-1a', 'a1'),
      running('us-east-1a', 'a2'),
      running('us-east-1b', 'b1'),
      running('us-east-1b', 'b2'),
    ];
    const r = schedule(
      schedulingInput({
        nodePools: [pool],
        nodes,
        pods: pods(2, { cpu: '1', labels: web, topologySpread: [spreadOverZones] }),
      }),
    );
    expect(podsPerZone(r)).toStrictEqual({ 'us-east-1c': 2 });
    expect(r.unschedulable).toStrictEqual([]);
  });

  it('counts only zones where a type the NodePool admits is offered in a capacity type it admits', () => {
    // us-east-1c offers m5.large only as spot, and on-demand only c5.large, which the pods'
    // nodeSelector does not admit: for on-demand m5.large pods it is no domain, so the spread
    // is 2/2 with nothing pending.
    const large = instanceType('m5.large');
    const other = instanceType('c5.large');
    const types = [
      {
        ...large,
        offerings: large.offerings.filter((o) =>
          o.zone === 'us-east-1c' ? o.capacityType === 'spot' : ['us-east-1a', 'us-east-1b'].includes(o.zone),
        ),
      },
      { ...other, offerings: other.offerings.filter((o) => o.zone === 'us-east-1c') },
    ];
    const onDemand = nodePool({
      requirements: [
        { key: LABEL_ZONE, operator: 'In', values: ZONES },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
    });
    const r = schedule(
      schedulingInput({
        nodePools: [onDemand],
        instanceTypes: new Map([['default', types]]),
        pods: pods(4, {
          cpu: '1',
          labels: web,
          nodeSelector: { 'node.kubernetes.io/instance-type': 'm5.large' },
          topologySpread: [spreadOverZones],
        }),
      }),
    );
    expect(podsPerZone(r)).toStrictEqual({ 'us-east-1a': 2, 'us-east-1b': 2 });
    expect(r.unschedulable).toStrictEqual([]);
  });

  it('counts no zone the NodePool does not allow, offered or not', () => {
    const twoZones = nodePool({
      requirements: [
        { key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
    });
    const r = schedule(
      schedulingInput({
        nodePools: [twoZones],
        instanceTypes: new Map([['default', refusedIn('us-east-1c')]]),
        pods: pods(4, { cpu: '1', labels: web, topologySpread: [spreadOverZones] }),
      }),
    );
    expect(podsPerZone(r)).toStrictEqual({ 'us-east-1a': 2, 'us-east-1b': 2 });
    expect(r.unschedulable).toStrictEqual([]);
  });

  it('counts capacity types, not zones, as the domains of a capacity-type spread', () => {
    // topology_test.go "should respect NodePool capacity type constraints": 4 pods, 2/2.
    const both = nodePool({
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }],
    });
    const byCapacityType = { ...spreadOverZones, topologyKey: 'karpenter.sh/capacity-type' };
    const r = schedule(
      schedulingInput({
        nodePools: [both],
        pods: pods(4, { cpu: '1', labels: web, topologySpread: [byCapacityType] }),
      }),
    );
    const perType: Record<string, number> = {};
    for (const c of r.nodeClaims) perType[c.capacityType] = (perType[c.capacityType] ?? 0) + c.pods.length;
    expect(perType).toStrictEqual({ spot: 2, 'on-demand': 2 });
    expect(r.unschedulable).toStrictEqual([]);
  });

  it('counts no zone of a NodePool the pods cannot use (its template labels exclude them)', () => {
    // buildDomainGroups skips a NodePool whose requirements the pod's are not compatible with
    // (topology.go: `nodePool ... Compatible`); the pods select team b, only `b` (zones a and b)
    // may take them, so `a`'s zone c is no domain and the spread is 2/2 with nothing pending.
    const teamA = nodePool({ name: 'a', templateLabels: { team: 'a' } });
    const teamB = nodePool({
      name: 'b',
      templateLabels: { team: 'b' },
      requirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
    });
    const r = schedule(
      schedulingInput({
        nodePools: [teamA, teamB],
        pods: pods(4, {
          cpu: '1',
          labels: web,
          nodeSelector: { team: 'b' },
          topologySpread: [spreadOverZones],
        }),
      }),
    );
    expect(podsPerZone(r)).toStrictEqual({ 'us-east-1a': 2, 'us-east-1b': 2 });
    expect(r.unschedulable).toStrictEqual([]);
  });
});
