import type { AwsCredentialIdentity } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { EksTokenSource } from '../../../shared/aws/eks/eks-token-source';
import { CloudError } from '../../../shared/core/model/errors';
import { VirtualTime } from '../../../sim/virtual-time';
import { lambdaCredentials } from '../../../sim/world/aws/eks-world';
import { decodeEksToken } from './decode-eks-token';

const MINUTE = 60_000;

function tokenSource(credentials: () => Promise<AwsCredentialIdentity> = async () => lambdaCredentials) {
  const clock = new VirtualTime(Date.UTC(2026, 0, 1, 0, 0, 0));
  let credentialCalls = 0;
  const source = new EksTokenSource({
    clusterName: 'prod',
    region: 'us-east-1',
    clock,
    credentials: () => {
      credentialCalls += 1;
      return credentials();
    },
  });
  return { clock, source, credentialCalls: () => credentialCalls };
}

describe('EksTokenSource', () => {
  it('hands out the same token for 14 minutes, then signs a new one at the clock time', async () => {
    const { clock, source, credentialCalls } = tokenSource();
    const first = await source.get();
    expect(decodeEksToken(first.token).query['X-Amz-Date']).toBe('20260101T000000Z');
    expect(first.expiresAt).toBe(clock.now() + 15 * MINUTE);
    expect(first.refreshAt).toBe(clock.now() + 14 * MINUTE);

    clock.advance(14 * MINUTE - 1);
    expect(await source.get()).toBe(first);
    expect(credentialCalls()).toBe(1);

    clock.advance(1);
    const second = await source.get();
    expect(second.token).not.toBe(first.token);
    expect(decodeEksToken(second.token).query['X-Amz-Date']).toBe('20260101T001400Z');
    expect(second.refreshAt).toBe(clock.now() + 14 * MINUTE);
    expect(credentialCalls()).toBe(2);
  });

  it('shares one signing between concurrent callers', async () => {
    const { source, credentialCalls } = tokenSource();
    const [a, b] = await Promise.all([source.get(), source.get()]);
    expect(a).toBe(b);
    expect(credentialCalls()).toBe(1);
  });

  it('refreshes a minute before the credentials expire when that comes first', async () => {
    const { clock, source } = tokenSource(async () => ({
      ...lambdaCredentials,
      expiration: new Date(Date.UTC(2026, 0, 1, 0, 5)),
    }));
    const token = await source.get();
    expect(token.expiresAt).toBe(Date.UTC(2026, 0, 1, 0, 5));
    expect(token.refreshAt).toBe(Date.UTC(2026, 0, 1, 0, 4));
    clock.advance(4 * MINUTE);
    expect((await source.get()).token).not.toBe(token.token);
  });

  it('fails with a CloudError naming the cluster when there are no credentials, and tries again next time', async () => {
    let fail = true;
    const { source } = tokenSource(async () => {
      if (fail)
        throw Object.assign(new Error('Could not load credentials from any providers'), {
          name: 'CredentialsProviderError',
        });
      return lambdaCredentials;
    });
    const error = await source.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({
      code: 'CredentialsProviderError',
      message: expect.stringContaining(
        'signing an EKS token for cluster prod in us-east-1: no AWS credentials',
      ),
    });
    fail = false;
    expect((await source.get()).token).toMatch(/^k8s-aws-v1\./);
  });
});
