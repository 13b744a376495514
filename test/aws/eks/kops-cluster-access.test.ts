import { SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { KopsClusterAccess } from '../../../shared/aws/eks/kops-cluster-access';
import type { KopsClusterAccessData } from '../../../shared/aws/eks/kops-cluster-parameter';
import { TtlCache } from '../../../shared/aws/ttl-cache';
import { CloudError, NotFoundError, ValidationError } from '../../../shared/core/model/errors';
import type { ClusterAccess } from '../../../shared/core/ports/cluster-access';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { FakeSsm } from '../../../sim/fakes/aws/fake-ssm';
import { VirtualTime } from '../../../sim/virtual-time';

const PARAMETER = '/podlift/kops-prod/cluster';
const SECRET = 'eyJhbGciOiJSUzI1NiJ9.podlift-service-account.signature';
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nkops\n-----END CERTIFICATE-----\n').toString('base64');

function parameterValue(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    endpoint: 'https://api.kops-prod.example.com',
    certificateAuthority: CA,
    token: SECRET,
    kubernetesVersion: '1.31',
    serviceCidr: '100.64.0.0/13',
    ...overrides,
  });
}

function kopsWorld(value = parameterValue(), type: 'SecureString' | 'String' = 'SecureString') {
  const clock = new VirtualTime();
  const fake = new FakeSsm({ clock, parameters: [{ name: PARAMETER, value, type }] });
  const ssm = new SSMClient(clientConfig);
  attachFake(ssm, fake);
  const access = new KopsClusterAccess({
    ssm,
    clusterName: 'kops-prod',
    clock,
    cache: new TtlCache<KopsClusterAccessData>(),
  });
  return { clock, fake, ssm, access };
}

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('KopsClusterAccess', () => {
  it('reads ClusterInfo and the token from the decrypted SecureString parameter', async () => {
    const { access, fake } = kopsWorld(parameterValue({ kubernetesVersion: 'v1.31.4' }));
    const port: ClusterAccess = access; // the port shared/kube consumes
    expect(await port.clusterInfo()).toEqual({
      name: 'kops-prod',
      endpoint: 'https://api.kops-prod.example.com',
      certificateAuthority: CA,
      kubernetesVersion: '1.31',
      serviceCidr: '100.64.0.0/13',
      ipFamily: 'ipv4',
      clusterDns: '100.64.0.10',
    });
    expect(await port.bearerToken()).toEqual({ token: SECRET });
    expect(fake.callsTo('GetParameter')).toEqual([{ Name: PARAMETER, WithDecryption: true }]);
  });

  it('takes a configured cluster DNS address over the 10th service address', async () => {
    const { access } = kopsWorld(parameterValue({ clusterDns: '169.254.20.10' }));
    expect((await access.clusterInfo()).clusterDns).toBe('169.254.20.10');
  });

  it('reads the parameter once per TTL, so a rotated token is picked up', async () => {
    const { access, fake, clock } = kopsWorld();
    await access.clusterInfo();
    await access.bearerToken();
    expect(fake.callsTo('GetParameter')).toHaveLength(1);
    fake.seed({ name: PARAMETER, value: parameterValue({ token: 'rotated' }), type: 'SecureString' });
    clock.advance(300_000);
    expect(await access.bearerToken()).toEqual({ token: 'rotated' });
    expect(fake.callsTo('GetParameter')).toHaveLength(2);
  });

  it('throws a NotFoundError naming the parameter when it does not exist', async () => {
    const { ssm, clock } = kopsWorld();
    const access = new KopsClusterAccess({ ssm, clusterName: 'other', clock, cache: new TtlCache() });
    const error = await errorOf(access.clusterInfo());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      resource: 'SSM parameter /podlift/other/cluster',
      message:
        'reading the access of cluster other from SSM parameter /podlift/other/cluster: no such parameter (ParameterNotFound)',
    });
  });

  it.each([
    [
      { endpoint: 'http://api.example.com' },
      'endpoint: must be an https:// URL (got "http://api.example.com")',
    ],
    [{ token: '' }, 'token: must be a non-empty service-account token'],
    [
      { kubernetesVersion: 'latest' },
      'kubernetesVersion: must be a Kubernetes version such as "1.31" (got "latest")',
    ],
    [{ serviceCidr: '100.64.0.0' }, 'serviceCidr: not an IPv4 or IPv6 CIDR'],
    [{ certificateAuthority: '-----BEGIN' }, 'certificateAuthority: must be the base64 of the CA PEM'],
    [{ certificateAuthority: undefined }, 'certificateAuthority: required field is missing (got nothing)'],
    [{ clusterDns: 'kube-dns' }, 'clusterDns: must be an IP address (got "kube-dns")'],
  ])('refuses %j with a ValidationError naming the parameter and field', async (overrides, message) => {
    const error = await errorOf(kopsWorld(parameterValue(overrides)).access.clusterInfo());
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(`SSM parameter ${PARAMETER}: `);
    expect((error as Error).message).toContain(message);
  });

  it('never echoes the token: not for bad JSON, a bad token or a misspelt field', async () => {
    for (const value of [
      `{"token": "${SECRET}",`,
      `{"token": ${SECRET}}`,
      parameterValue({ token: 42 }),
      parameterValue({ token: undefined, tokn: SECRET }),
    ]) {
      const error = await errorOf(kopsWorld(value).access.bearerToken());
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toContain(`SSM parameter ${PARAMETER}: `);
      expect((error as Error).message).not.toContain(SECRET.slice(0, 6)); // V8 quotes only a snippet
      expect((error as Error).message).not.toContain('42');
    }
    const misspelt = await errorOf(kopsWorld(parameterValue({ tokn: SECRET })).access.bearerToken());
    expect((misspelt as Error).message).toContain('tokn: unknown field "tokn"');
  });

  it('refuses a plain String parameter: the value holds a credential', async () => {
    const error = await errorOf(kopsWorld(parameterValue(), 'String').access.clusterInfo());
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(
      `SSM parameter ${PARAMETER}: Type: must be SecureString: the value holds a token (got "String")`,
    );
  });

  it('turns SSM throttling into a retryable CloudError', async () => {
    const { access, fake } = kopsWorld();
    fake.throttle('GetParameter');
    const error = await errorOf(access.clusterInfo());
    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'ThrottlingException', retryable: true });
    expect(await access.bearerToken()).toEqual({ token: SECRET });
  });
});
