import { describe, expect, it } from 'vitest';
import { LABEL_ARCH, LABEL_CAPACITY_TYPE, LABEL_ZONE } from '../../../shared/core/model/labels';
import type { PreferredSchedulingTerm } from '../../../shared/core/model/pod';
import {
  podRequirementTerms,
  preferredRequirements,
  relaxations,
} from '../../../shared/core/model/pod-requirements';
import type { Requirements } from '../../../shared/core/model/requirements';
import { pod } from '../../../sim/world/builders';

function prefer(weight: number, key: string, ...values: string[]): PreferredSchedulingTerm {
  return { weight, preference: { matchExpressions: [{ key, operator: 'In', values }] } };
}

/** The API form of each ORed term, for readable assertions. */
function api(terms: readonly Requirements[]) {
  return terms.map((t) => t.toSelectorRequirements());
}

describe('podRequirementTerms', () => {
  it('is one unconstrained term for a pod with no selector or affinity', () => {
    const terms = podRequirementTerms(pod());
    expect(terms).toHaveLength(1);
    expect(terms[0].size).toBe(0);
  });

  it('turns the nodeSelector into In requirements', () => {
    expect(api(podRequirementTerms(pod({ nodeSelector: { [LABEL_ARCH]: 'arm64', team: 'blue' } })))).toEqual([
      [
        { key: LABEL_ARCH, operator: 'In', values: ['arm64'] },
        { key: 'team', operator: 'In', values: ['blue'] },
      ],
    ]);
  });

  it('intersects the nodeSelector into each ORed required term', () => {
    const p = pod({
      nodeSelector: { [LABEL_ARCH]: 'arm64' },
      requiredNodeAffinity: [
        { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] }] },
        {
          matchExpressions: [
            { key: LABEL_ZONE, operator: 'In', values: ['us-east-1b'] },
            { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] },
          ],
        },
      ],
    });
    expect(api(podRequirementTerms(p))).toEqual([
      [
        { key: LABEL_ARCH, operator: 'In', values: ['arm64'] },
        { key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] },
      ],
      [
        { key: LABEL_ARCH, operator: 'In', values: ['arm64'] },
        { key: LABEL_ZONE, operator: 'In', values: ['us-east-1b'] },
        { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] },
      ],
    ]);
  });

  it('narrows a key the nodeSelector and a term both constrain', () => {
    const p = pod({
      nodeSelector: { [LABEL_ZONE]: 'us-east-1a' },
      nodeRequirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
    });
    expect(podRequirementTerms(p)[0].labels()).toEqual({ [LABEL_ZONE]: 'us-east-1a' });
  });

  it('leaves out empty terms, which match no node', () => {
    const p = pod({
      requiredNodeAffinity: [
        { matchExpressions: [] },
        { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] }] },
      ],
    });
    expect(podRequirementTerms(p)).toHaveLength(1);
    expect(podRequirementTerms(pod({ requiredNodeAffinity: [{ matchExpressions: [] }] }))).toEqual([]);
  });
});

describe('preferredRequirements', () => {
  it('sorts heaviest first, keeping the pod order among equal weights', () => {
    const p = pod({
      preferredNodeAffinity: [
        prefer(1, LABEL_ZONE, 'us-east-1a'),
        prefer(50, LABEL_CAPACITY_TYPE, 'spot'),
        prefer(10, 'first', 'x'),
        prefer(10, 'second', 'x'),
      ],
    });
    const preferred = preferredRequirements(p);
    expect(preferred.map((p) => p.weight)).toEqual([50, 10, 10, 1]);
    expect(preferred.map((p) => [...p.requirements.keys()][0])).toEqual([
      LABEL_CAPACITY_TYPE,
      'first',
      'second',
      LABEL_ZONE,
    ]);
    expect(preferred[0].term).toBe(p.preferredNodeAffinity[1]);
  });

  it('is empty without preferences', () => {
    expect(preferredRequirements(pod())).toEqual([]);
  });
});

describe('relaxations', () => {
  it('yields only the hard requirements for a pod without preferences', () => {
    const steps = [...relaxations(pod({ nodeSelector: { team: 'blue' } }))];
    expect(steps).toHaveLength(1);
    expect(steps[0].preference).toBeUndefined();
    expect(api(steps[0].terms)).toEqual([[{ key: 'team', operator: 'In', values: ['blue'] }]]);
  });

  it('requires the heaviest preference first, drops it, then tries the next, then none', () => {
    const spot = prefer(50, LABEL_CAPACITY_TYPE, 'spot');
    const zone = prefer(10, LABEL_ZONE, 'us-east-1a');
    const p = pod({ nodeSelector: { team: 'blue' }, preferredNodeAffinity: [zone, spot] });
    const steps = [...relaxations(p)];
    expect(steps.map((s) => s.preference)).toEqual([spot, zone, undefined]);
    expect(steps.map((s) => api(s.terms))).toEqual([
      [
        [
          { key: 'team', operator: 'In', values: ['blue'] },
          { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['spot'] },
        ],
      ],
      [
        [
          { key: 'team', operator: 'In', values: ['blue'] },
          { key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] },
        ],
      ],
      [[{ key: 'team', operator: 'In', values: ['blue'] }]],
    ]);
  });

  it('only ever requires one preference at a time', () => {
    const p = pod({
      preferredNodeAffinity: [prefer(30, 'a', '1'), prefer(20, 'b', '1'), prefer(10, 'c', '1')],
    });
    for (const step of relaxations(p)) {
      for (const term of step.terms) expect(term.size).toBeLessThanOrEqual(1);
    }
  });

  it('applies the preference to every ORed required term', () => {
    const p = pod({
      requiredNodeAffinity: [
        { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] }] },
        { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1b'] }] },
      ],
      preferredNodeAffinity: [prefer(1, LABEL_CAPACITY_TYPE, 'spot')],
    });
    const [first, last] = [...relaxations(p)];
    expect(first.terms).toHaveLength(2);
    for (const term of first.terms) expect(term.get(LABEL_CAPACITY_TYPE)?.single).toBe('spot');
    expect(last.terms.map((t) => t.has(LABEL_CAPACITY_TYPE))).toEqual([false, false]);
  });

  it('is lazy: a caller that succeeds early computes nothing more', () => {
    const p = pod({ preferredNodeAffinity: [prefer(2, 'a', '1'), prefer(1, 'b', '1')] });
    const it = relaxations(p);
    expect(it.next().value?.preference?.weight).toBe(2);
    expect(it.return(undefined).done).toBe(true);
  });
});
