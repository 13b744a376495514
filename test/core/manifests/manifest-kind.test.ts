import { describe, expect, it } from 'vitest';
import { manifestIdentity, manifestRef } from '../../../shared/core/manifests/manifest-kind';

describe('manifestIdentity', () => {
  it('reads apiVersion, kind, name and namespace', () => {
    expect(
      manifestIdentity({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'prod' },
        spec: 1,
      }),
    ).toEqual({ apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'prod' });
  });

  it('leaves out what is missing, empty or not a string, whatever the body looks like', () => {
    expect(manifestIdentity({ kind: 'NodePool', metadata: { name: 7 } })).toEqual({ kind: 'NodePool' });
    expect(manifestIdentity({ apiVersion: '', metadata: 'x' })).toEqual({});
    expect(manifestIdentity(null)).toEqual({});
    expect(manifestIdentity(['kind'])).toEqual({});
    expect(manifestIdentity('kind: NodePool')).toEqual({});
  });
});

describe('manifestRef', () => {
  it('says Kind/name, with the namespace for namespaced objects', () => {
    expect(manifestRef({ kind: 'NodePool', metadata: { name: 'default' } })).toBe('NodePool/default');
    expect(manifestRef({ kind: 'Pod', metadata: { name: 'web', namespace: 'prod' } })).toBe('Pod/prod/web');
  });

  it('falls back to the given kind and <unnamed>', () => {
    expect(manifestRef({ metadata: {} }, 'EC2NodeClass')).toBe('EC2NodeClass/<unnamed>');
    expect(manifestRef(undefined)).toBe('object/<unnamed>');
  });
});
