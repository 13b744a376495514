import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type InstallDeps,
  type InstallResponse,
  isInstallComplete,
  onInstallEvent,
} from '../../../functions/install/install';
import { renderManifests } from '../../../infra/parts/install-manifests';
import { INSTALL_ACCESS_GRACE_MS } from '../../../shared/core/install/access-grace';
import { KubeClusterManifests } from '../../../shared/kube/cluster-manifests';
import { staticKubeConfig } from '../../../shared/kube/kubeconfig-source';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../../sim/fakes/kube';
import {
  functionIdentity,
  INSTALLER_IDENTITY,
  podliftAuthorization,
} from '../../../sim/world/kube-identities';
import { rejectionOf } from '../../kube/harness';
import { create, manifests, properties, remove, rolledOut, TestClock, update } from './install-fixtures';

/**
 * The installer while EKS does not honour its fresh access entry yet (401) or its policy
 * association (403), or a fresh cluster's endpoint does not answer: onEvent does not fail the
 * deploy, isComplete applies once the cluster lets it, and only past the grace window do those
 * answers fail with the hint. Delete keeps failing at once.
 */

const base = renderManifests();
const START = Date.parse('2026-11-27T12:00:00Z');
const POLL_MS = 10_000;

let server: FakeKubeApiServer;
let clock: TestClock;
let deps: InstallDeps;

function depsAs(token: string): InstallDeps {
  return {
    manifests: new KubeClusterManifests(staticKubeConfig(server.kubeConfig(token))),
    base,
    clusterExists: async () => undefined,
    clock,
  };
}

/**
 * isComplete's event: the Provider framework merges onEvent's answer into the request
 * (aws-cdk-lib provider-framework/runtime/framework.ts `createResponseEvent`).
 */
function polled<E extends object>(event: E, response: InstallResponse): E & InstallResponse {
  return { ...event, ...response };
}

/** The 403 EKS answers while the access entry's policy association is not honoured yet. */
const notYetForbidden = (resource: string, name: string) =>
  `${resource} "${name}" is forbidden: User "${INSTALLER_IDENTITY.user.name}" cannot patch resource "${resource}" in API group "" at the cluster scope`;

beforeEach(async () => {
  server = await startFakeKubeApiServer({ authorization: podliftAuthorization() });
  clock = new TestClock(START);
  deps = depsAs(INSTALLER_IDENTITY.token);
});
afterEach(() => server.close());

describe('the installer before the cluster honours its access entry', () => {
  it.each([
    [403, notYetForbidden('namespaces', 'podlift')],
    [401, 'Unauthorized'],
  ])(
    'waits on %i instead of failing, then applies from isComplete and waits for the watcher',
    async (code, message) => {
      server.failNext('patch', '*', code, { times: 2, message });

      const response = await onInstallEvent(create(), deps);

      expect(response).toEqual({
        PhysicalResourceId: 'podlift-manifests-demo',
        Data: {
          Applied: 0,
          Pruned: 0,
          Deleted: 0,
          StartedAt: '2026-11-27T12:00:00.000Z',
          ApplyPending: true,
        },
      });
      expect(server.store.find('namespaces', 'podlift')).toBeUndefined();
      const event = polled(create(), response);

      clock.advance(POLL_MS);
      expect(await isInstallComplete(event, deps)).toEqual({
        IsComplete: false,
        Message: "waiting for cluster demo to honour the installer's access entry",
      });

      clock.advance(POLL_MS);
      expect(await isInstallComplete(event, deps)).toEqual({
        IsComplete: false,
        Message: 'Waiting for deployment spec update to be observed...',
      });
      expect(server.store.get('configmaps', 'podlift-watcher', 'podlift').data).toMatchObject({
        CLUSTER_NAME: 'demo',
      });
      const patches = server.requests.filter((r) => r.method === 'PATCH').map((r) => r.status);
      // Refused in onEvent and in the first poll, then every object applied once.
      expect(patches.slice(0, 2)).toEqual([code, code]);
      expect(patches.slice(2).every((status) => status < 300)).toBe(true);
      expect(patches).toHaveLength(2 + manifests.objects.length);

      rolledOut(server);
      clock.advance(POLL_MS);
      expect(await isInstallComplete(event, deps)).toMatchObject({ IsComplete: true });
    },
  );

  it('fails with the refusal and the access-entry hint once the grace window has passed (403)', async () => {
    const unauthorized = depsAs(functionIdentity('provisioner').token);
    const event = polled(create(), await onInstallEvent(create(), unauthorized));

    clock.advance(INSTALL_ACCESS_GRACE_MS - 1);
    expect(await isInstallComplete(event, unauthorized)).toMatchObject({ IsComplete: false });
    clock.advance(1);
    const error = await rejectionOf(isInstallComplete(event, unauthorized));

    expect(error.name).toBe('InstallError');
    expect(error.message).toMatch(
      /^installing podlift's manifests in cluster demo: applying v1 Namespace podlift: Forbidden: namespaces "podlift" is forbidden: User "arn:aws:sts::123456789012:assumed-role\/.*" cannot patch resource "namespaces" in API group "" at the cluster scope/,
    );
    expect(error.message).toContain('AmazonEKSClusterAdminPolicy');
  });

  it('fails with the refusal and the access-entry hint once the grace window has passed (401)', async () => {
    const unknown = depsAs('k8s-aws-v1.no-access-entry');
    const event = polled(create(), await onInstallEvent(create(), unknown));

    clock.advance(INSTALL_ACCESS_GRACE_MS);
    const error = await rejectionOf(isInstallComplete(event, unknown));

    expect(error.message).toMatch(
      /^installing podlift's manifests in cluster demo: applying v1 Namespace podlift: Unauthorized: Unauthorized \(the installer's role needs its EKS access entry with AmazonEKSClusterAdminPolicy/,
    );
  });

  it('applies and prunes an Update from isComplete when onEvent was refused', async () => {
    await onInstallEvent(create(), deps);
    rolledOut(server);
    server.store.create('clusterroles.rbac.authorization.k8s.io', {
      metadata: { name: 'podlift-old' },
      rules: [],
    });
    const previous = properties({
      Objects: [...manifests.objects, 'rbac.authorization.k8s.io/v1 ClusterRole podlift-old'],
      ManifestsDigest: 'before',
    });
    const next = properties({ EventBusName: 'podlift-demo-2' });
    server.failNext('patch', '*', 403, { message: notYetForbidden('namespaces', 'podlift') });

    const response = await onInstallEvent(update(next, previous), deps);

    expect(response.Data).toMatchObject({ Applied: 0, Pruned: 0, ApplyPending: true });
    expect(server.store.find('clusterroles.rbac.authorization.k8s.io', 'podlift-old')).toBeDefined();

    clock.advance(POLL_MS);
    const answer = await isInstallComplete(polled(update(next, previous), response), deps);

    expect(server.store.get('configmaps', 'podlift-watcher', 'podlift').data).toMatchObject({
      EVENT_BUS_NAME: 'podlift-demo-2',
    });
    expect(server.store.find('clusterroles.rbac.authorization.k8s.io', 'podlift-old')).toBeUndefined();
    // The new generation is not observed yet.
    expect(answer).toMatchObject({ IsComplete: false });
  });

  it('waits while a fresh endpoint refuses connections, then fails with the endpoint hint', async () => {
    const config = server.kubeConfig(INSTALLER_IDENTITY.token);
    await server.close();
    const unreachable: InstallDeps = {
      ...deps,
      manifests: new KubeClusterManifests(staticKubeConfig(config)),
    };
    const event = polled(create(), await onInstallEvent(create(), unreachable));
    expect(event.Data.ApplyPending).toBe(true);

    clock.advance(INSTALL_ACCESS_GRACE_MS);
    const error = await rejectionOf(isInstallComplete(event, unreachable));

    expect(error.message).toMatch(/^installing podlift's manifests in cluster demo: .*ECONNREFUSED/);
    expect(error.message).toContain('public endpoint');
    server = await startFakeKubeApiServer({});
  });

  it('fails at once on any other answer', async () => {
    server.failNext('patch', '*', 500);

    const error = await rejectionOf(onInstallEvent(create(), deps));

    expect(error.message).toMatch(
      /^installing podlift's manifests in cluster demo: applying v1 Namespace podlift: /,
    );
  });

  it('fails a Delete at once on a refusal: only Create and Update wait', async () => {
    await onInstallEvent(create(), deps);
    server.failNext('delete', '*', 403, { message: 'deployments.apps "podlift-watcher" is forbidden' });

    const error = await rejectionOf(onInstallEvent(remove(), deps));

    expect(error.message).toMatch(/^removing podlift's manifests in cluster demo: .*Forbidden/);
    expect(error.message).toContain('AmazonEKSClusterAdminPolicy');
  });
});
