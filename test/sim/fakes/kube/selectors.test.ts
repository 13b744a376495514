import { describe, expect, it } from 'vitest';
import {
  fieldsMatch,
  labelSelectorObjectMatches,
  labelsMatch,
  parseFieldSelector,
  parseLabelSelector,
} from '../../../../sim/fakes/kube/selectors';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'frontend', replicas: '3' };
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web,tier=frontend', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,api)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['missing in (web)', false],
    ['app', true],
    ['!app', false],
    ['replicas>2,replicas<4', true],
  ])('%s selects %j: %s', (selector, expected) => {
    expect(labelsMatch(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('rejects malformed selectors', () => {
    expect(() => parseLabelSelector('app in web')).toThrow(/unable to parse requirement/);
    expect(() => parseLabelSelector('a=b=c')).toThrow();
  });

  it('matches the object form: null selects nothing, {} selects everything', () => {
    expect(labelSelectorObjectMatches(null, labels)).toBe(false);
    expect(labelSelectorObjectMatches({}, labels)).toBe(true);
    expect(
      labelSelectorObjectMatches(
        {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['frontend'] },
            { key: 'x', operator: 'DoesNotExist' },
          ],
        },
        labels,
      ),
    ).toBe(true);
  });
});

describe('field selectors', () => {
  it('compares missing fields as empty strings and honours escapes', () => {
    const unscheduled = { metadata: { name: 'a,b' }, spec: {}, status: { phase: 'Pending' } };
    expect(fieldsMatch(parseFieldSelector('spec.nodeName='), unscheduled)).toBe(true);
    expect(fieldsMatch(parseFieldSelector('metadata.name=a\\,b'), unscheduled)).toBe(true);
    expect(fieldsMatch(parseFieldSelector('status.phase!=Pending'), unscheduled)).toBe(false);
  });
});
