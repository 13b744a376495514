import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../../sim/fakes/kube';
import { functionIdentity, WATCHER_IDENTITY } from '../../../sim/world/kube-identities';
import { auditedIdentities, unusedGrants, usesIn } from './rbac-usage';

/** The least-privilege audit examples.test.ts runs after the scenarios, on request logs made by hand. */

const request = (user: string, method: string, path: string, verb: RecordedRequest['verb'], query = {}) =>
  ({ method, path, query, verb, user, status: 200 }) as RecordedRequest;

const identity = (label: string) => {
  const found = auditedIdentities().find((i) => i.label === label);
  if (!found) throw new Error(label);
  return found;
};

const watcher = WATCHER_IDENTITY.user.name;

describe('least-privilege audit', () => {
  it("names every grant of the watcher's a log did not use", () => {
    const log = ['pods', 'nodes'].flatMap((r) => [
      request(watcher, 'GET', `/api/v1/${r}`, 'list'),
      request(watcher, 'GET', `/api/v1/${r}`, 'watch', { watch: 'true' }),
    ]);
    expect(unusedGrants(identity('watcher'), usesIn(log))).toEqual([
      'list karpenter.sh/nodepools',
      'watch karpenter.sh/nodepools',
      'list karpenter.sh/nodeclaims',
      'watch karpenter.sh/nodeclaims',
      'list karpenter.k8s.aws/ec2nodeclasses',
      'watch karpenter.k8s.aws/ec2nodeclasses',
    ]);
  });

  it("counts a request only for its own identity's grants, and the Lease only by its name", () => {
    const termination = functionIdentity('termination').user.name;
    const provisioner = functionIdentity('provisioner').user.name;
    const log = [
      request(provisioner, 'GET', '/apis/coordination.k8s.io/v1/namespaces/podlift/leases/podlift', 'get'),
      request(termination, 'GET', '/apis/coordination.k8s.io/v1/namespaces/podlift/leases/other', 'get'),
      request(termination, 'POST', '/api/v1/namespaces/default/pods/web/eviction', 'create'),
    ];
    const unused = unusedGrants(identity('podlift:termination'), usesIn(log));
    expect(unused).toContain('get coordination.k8s.io/leases[podlift] in podlift');
    expect(unused).not.toContain('create core/pods/eviction');
    expect(unused).toContain('delete core/pods');
  });

  it('leaves out the grants named as used by code the world cannot play', () => {
    const unused = unusedGrants(identity('podlift:functions'), [], ['list core/persistentvolumes']);
    expect(unused).not.toContain('list core/persistentvolumes');
    expect(unused).toContain('list core/persistentvolumeclaims');
  });
});
