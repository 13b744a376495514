import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { EksClusterAccess } from '../../../shared/aws/eks/eks-cluster-access';
import { TtlCache } from '../../../shared/aws/ttl-cache';
import type { ClusterInfo } from '../../../shared/core/model/cluster-info';
import { ValidationError } from '../../../shared/core/model/errors';
import type { BearerToken, ClusterAccess } from '../../../shared/core/ports/cluster-access';
import { BearerTokenKubeConfigSource } from '../../../shared/kube/auth/bearer-token-kubeconfig-source';
import type { KubeConfigSource } from '../../../shared/kube/kubeconfig-source';
import { FAKE_EKS_CA } from '../../../sim/fakes/aws/fake-eks';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../../sim/fakes/kube';
import { eksWorld, lambdaCredentials } from '../../../sim/world/aws/eks-world';
import { decodeEksToken } from '../../aws/eks/decode-eks-token';

const MINUTE = 60_000;

/** EKS access over a real EKSClient + FakeEks, with a private DescribeCluster cache. */
function eksAccess(world: ReturnType<typeof eksWorld>): EksClusterAccess {
  return new EksClusterAccess({
    eks: world.eks,
    clusterName: 'prod',
    credentials: async () => lambdaCredentials,
    clock: world.clock,
    cache: new TtlCache<ClusterInfo>(),
  });
}

/** A ClusterAccess whose answers the test sets. */
class SettableAccess implements ClusterAccess {
  constructor(
    public info: ClusterInfo,
    public token: BearerToken,
  ) {}
  async clusterInfo(): Promise<ClusterInfo> {
    return this.info;
  }
  async bearerToken(): Promise<BearerToken> {
    return this.token;
  }
}

const cluster: ClusterInfo = {
  name: 'kops-prod',
  endpoint: 'https://api.kops-prod.example.com',
  certificateAuthority: FAKE_EKS_CA,
  kubernetesVersion: '1.31',
  serviceCidr: '100.64.0.0/13',
  ipFamily: 'ipv4',
  clusterDns: '100.64.0.10',
};

let server: FakeKubeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('BearerTokenKubeConfigSource', () => {
  it('builds an https-only KubeConfig trusting the cluster CA, with the EKS token as bearer token', async () => {
    const world = eksWorld();
    const access = eksAccess(world);
    const source: KubeConfigSource = new BearerTokenKubeConfigSource(access);
    const kubeConfig = await source.get();
    const info = await access.clusterInfo();
    expect(kubeConfig.getCurrentCluster()).toMatchObject({
      name: 'prod',
      server: info.endpoint,
      caData: FAKE_EKS_CA,
      skipTLSVerify: false,
    });
    expect(kubeConfig.getCurrentUser()?.token).toBe((await access.bearerToken()).token);
    expect(kubeConfig.getCurrentUser()?.token).toMatch(/^k8s-aws-v1\./);
  });

  it('returns the same KubeConfig while the token is valid and a new one once it is refreshed', async () => {
    const world = eksWorld();
    const source = new BearerTokenKubeConfigSource(eksAccess(world));
    const first = await source.get();
    world.clock.advance(14 * MINUTE - 1);
    expect(await source.get()).toBe(first);
    world.clock.advance(1);
    const second = await source.get();
    expect(second).not.toBe(first);
    const date = decodeEksToken(second.getCurrentUser()!.token!).query['X-Amz-Date'];
    expect(date).toBe('20260101T001400Z');
    expect(await source.get()).toBe(second);
  });

  it('keeps a static (kOps service-account) token config until the token or endpoint changes', async () => {
    const access = new SettableAccess(cluster, { token: 'sa-token-1' });
    const source = new BearerTokenKubeConfigSource(access);
    const first = await source.get();
    expect(await source.get()).toBe(first);
    access.token = { token: 'sa-token-2' };
    const rotated = await source.get();
    expect(rotated).not.toBe(first);
    expect(rotated.getCurrentUser()?.token).toBe('sa-token-2');
    access.info = { ...cluster, endpoint: 'https://api2.kops-prod.example.com' };
    expect((await source.get()).getCurrentCluster()?.server).toBe('https://api2.kops-prod.example.com');
  });

  it('refuses an http endpoint or a missing CA unless the test-only insecure option is set', async () => {
    for (const info of [
      { ...cluster, endpoint: 'http://127.0.0.1:6443' },
      { ...cluster, certificateAuthority: '' },
    ]) {
      const error = await new BearerTokenKubeConfigSource(new SettableAccess(info, { token: 't' }))
        .get()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(/^cluster kops-prod: (endpoint|certificateAuthority): /);
    }
    const insecure = new BearerTokenKubeConfigSource(
      new SettableAccess({ ...cluster, endpoint: 'http://127.0.0.1:6443' }, { token: 't' }),
      { insecureSkipTlsVerify: true },
    );
    expect((await insecure.get()).getCurrentCluster()).toMatchObject({
      server: 'http://127.0.0.1:6443',
      skipTLSVerify: true,
    });
  });

  it('reaches the API server with the EKS token through the real CoreV1Api, and switches tokens on refresh', async () => {
    const world = eksWorld();
    const access = eksAccess(world);
    const { token } = await access.bearerToken();
    server = await startFakeKubeApiServer({ requireToken: token, token });
    world.fake.seedCluster({ name: 'prod', endpoint: server.url });
    // The fake API server speaks plain HTTP: the one place the insecure option is set.
    const source = new BearerTokenKubeConfigSource(access, { insecureSkipTlsVerify: true });

    const core = (await source.get()).makeApiClient(CoreV1Api);
    const nodes = await core.listNode();
    expect(nodes.items).toEqual([]);
    expect(server.requests.map((r) => [r.method, r.path, r.status])).toEqual([['GET', '/api/v1/nodes', 200]]);
    expect(server.requests[0]?.token).toBe(token);
    expect(server.requests[0]?.token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);

    world.clock.advance(14 * MINUTE);
    const refreshed = (await source.get()).makeApiClient(CoreV1Api);
    await expect(refreshed.listNode()).rejects.toMatchObject({ code: 401 });
    expect(server.requests.at(-1)?.token).not.toBe(token);
    expect(server.requests.at(-1)?.token).toMatch(/^k8s-aws-v1\./);
  });
});
