import { parseArgs } from 'node:util';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InstallCommandTools, installCommand } from '../../cli/install';
import { renderManifests } from '../../infra/parts/install-manifests';
import { attachFake } from '../../sim/fakes/aws/attach';
import { clientConfig } from '../../sim/fakes/aws/client-config';
import { FakeSsm } from '../../sim/fakes/aws/fake-ssm';
import { type FakeKubeApiServer, RbacPolicy, startFakeKubeApiServer } from '../../sim/fakes/kube';
import { VirtualTime } from '../../sim/virtual-time';
import { rejectionOf } from '../kube/harness';

/**
 * `podlift install`, the kOps stack's one command, against the fake API server (as the cluster
 * admin) and a fake Parameter Store: the manifests, the functions' ServiceAccount, its token in
 * the SSM parameter the functions read, and the wait for the watcher.
 */

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n').toString('base64');

let server: FakeKubeApiServer;
let ssm: FakeSsm;
let out: string[];
let polls: number;

beforeEach(async () => {
  server = await startFakeKubeApiServer({});
  ssm = new FakeSsm({ clock: new VirtualTime() });
  out = [];
  polls = 0;
});
afterEach(() => server.close());

function tools(rollout: 'ready' | 'never' = 'ready'): InstallCommandTools {
  return {
    parseArgs: (args, options) => parseArgs({ args, options, allowPositionals: true, strict: true }),
    usageError: (message) => new Error(`usage: ${message}`),
    stdout: (text) => out.push(text),
    manifests: renderManifests,
    kubeConfig: () => {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'kops', server: server.url, skipTLSVerify: true, caData: CA }],
        users: [{ name: 'admin', token: 'podlift-test-token' }],
        contexts: [{ name: 'kops', cluster: 'kops', user: 'admin' }],
        currentContext: 'kops',
      });
      return kc;
    },
    ssm: () => {
      const client = new SSMClient(clientConfig);
      attachFake(client, ssm);
      return client;
    },
    // Between two polls the Deployment controller rolls the watcher out.
    sleep: async () => {
      polls += 1;
      if (rollout === 'never') return;
      const live = server.store.get('deployments.apps', 'podlift-watcher', 'podlift');
      server.store.updateStatus(
        'deployments.apps',
        {
          ...live,
          status: {
            observedGeneration: live.metadata.generation,
            replicas: 1,
            updatedReplicas: 1,
            availableReplicas: 1,
          },
        },
        { namespace: 'podlift' },
      );
    },
    now: () => polls * 5000,
  };
}

const ARGS = [
  '--kops',
  '--cluster',
  'kops-prod',
  '--region',
  'eu-west-1',
  '--event-bus',
  'podlift-kops-prod',
  '--image',
  'example.com/podlift-watcher:1',
];

describe('podlift install --kops', () => {
  it('applies the manifests and the functions identity, writes the token parameter, waits for the watcher', async () => {
    await installCommand([...ARGS, '--watcher-role-arn', 'arn:aws:iam::123456789012:role/w'], tools());

    expect(server.store.get('configmaps', 'podlift-watcher', 'podlift').data).toMatchObject({
      CLUSTER_NAME: 'kops-prod',
      EVENT_BUS_NAME: 'podlift-kops-prod',
      AWS_REGION: 'eu-west-1',
    });
    expect(server.store.get('serviceaccounts', 'podlift-watcher', 'podlift').metadata).toMatchObject({
      labels: { 'app.kubernetes.io/name': 'podlift-watcher' },
      annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/w' },
    });
    const client = tools().ssm('eu-west-1');
    const stored = await client.send(
      new GetParameterCommand({ Name: '/podlift/kops-prod/cluster', WithDecryption: true }),
    );
    expect(stored.Parameter?.Type).toBe('SecureString');
    const value = JSON.parse(stored.Parameter?.Value ?? '{}') as Record<string, string>;
    expect(value).toEqual({
      endpoint: server.url,
      certificateAuthority: CA,
      token: expect.stringMatching(/^sim-sa-token\.podlift\.podlift-functions\.\d+$/),
      kubernetesVersion: expect.stringMatching(/^1\.\d+$/),
      serviceCidr: '100.64.0.0/13',
    });
    expect(out.at(-1)).toBe('deployment "podlift-watcher" successfully rolled out\n');
    expect(polls).toBe(1);
  });

  it('binds the functions ServiceAccount to what EKS access entries give the two groups', async () => {
    await installCommand(ARGS, tools());

    const texts = ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].flatMap((r) =>
      server.store
        .list(`${r}.rbac.authorization.k8s.io`)
        .items.map((o) =>
          JSON.stringify({ ...o, apiVersion: 'rbac.authorization.k8s.io/v1', kind: kindOf(r) }),
        ),
    );
    const policy = RbacPolicy.fromYaml(texts);
    const user = {
      name: 'system:serviceaccount:podlift:podlift-functions',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:podlift', 'system:authenticated'],
    };
    const can = (
      verb: string,
      apiGroup: string,
      resource: string,
      namespace = '',
      name = '',
      subresource = '',
    ) =>
      policy.authorize(user, {
        resourceRequest: true,
        verb,
        apiGroup,
        resource,
        subresource,
        namespace,
        name,
      }).allowed;
    expect(can('create', 'karpenter.sh', 'nodeclaims')).toBe(true);
    expect(can('create', '', 'pods', 'default', 'web-1', 'eviction')).toBe(true);
    expect(can('update', 'coordination.k8s.io', 'leases', 'podlift', 'podlift')).toBe(true);
    expect(can('delete', '', 'nodes')).toBe(true);
    expect(can('list', '', 'secrets')).toBe(false);
  });

  it('fails naming the watcher rollout when it never becomes ready in time', async () => {
    const error = await rejectionOf(installCommand([...ARGS, '--timeout', '10'], tools('never')));

    expect(error.message).toBe(
      'the watcher is not ready after 10 s: Waiting for deployment spec update to be observed...',
    );
  });

  it('refuses kOps-only options without --kops, and a missing value', async () => {
    await expect(
      installCommand([...ARGS.slice(1), '--service-cidr', '10.0.0.0/16'], tools()),
    ).rejects.toThrow('usage: --service-cidr needs --kops');
    await expect(installCommand(['--kops', '--cluster', 'x'], tools())).rejects.toThrow(
      'usage: --region is required',
    );
  });
});

function kindOf(plural: string): string {
  return {
    clusterroles: 'ClusterRole',
    clusterrolebindings: 'ClusterRoleBinding',
    roles: 'Role',
    rolebindings: 'RoleBinding',
  }[plural] as string;
}
