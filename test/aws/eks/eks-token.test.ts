import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signEksToken, stsHostname } from '../../../shared/aws/eks/eks-token';
import { lambdaCredentials } from '../../../sim/world/aws/eks-world';
import { decodeEksToken } from './decode-eks-token';

const signingDate = new Date(Date.UTC(2026, 0, 1, 10, 30, 15));

/** What aws-iam-authenticator's verifier accepts as query parameters (pkg/token/token.go). */
const AUTHENTICATOR_WHITELIST = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
]);

const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/**
 * SigV4 recomputed from scratch (node:crypto), as STS does when the API server replays the URL
 * with the `x-k8s-aws-id` header it expects.
 */
function expectedSignature(url: URL, clusterId: string, secretAccessKey: string): string {
  const params = [...url.searchParams].filter(([key]) => key !== 'X-Amz-Signature');
  const canonicalQuery = params
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .sort()
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${url.host}\nx-k8s-aws-id:${clusterId}\n`,
    'host;x-k8s-aws-id',
    sha256(''),
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date')!;
  const [, day, region, service] = url.searchParams.get('X-Amz-Credential')!.split('/');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, day!);
  for (const part of [region!, service!, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

const sign = (overrides: { clusterName?: string; region?: string; signingDate?: Date } = {}) =>
  signEksToken({
    clusterName: overrides.clusterName ?? 'prod',
    region: overrides.region ?? 'us-east-1',
    credentials: lambdaCredentials,
    signingDate: overrides.signingDate ?? signingDate,
  });

describe('signEksToken', () => {
  it('is k8s-aws-v1. + unpadded base64url of a presigned STS GetCallerIdentity URL', async () => {
    const token = await sign();
    expect(token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    expect(token.length).toBeLessThanOrEqual(4096); // the authenticator's maxTokenLenBytes
    const { url, query } = decodeEksToken(token);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.us-east-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(query).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'ASIAPODLIFTTESTKEY01/20260101/us-east-1/sts/aws4_request',
      'X-Amz-Date': '20260101T103015Z',
      'X-Amz-Expires': '60',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
      'X-Amz-Security-Token': lambdaCredentials.sessionToken,
    });
    expect(query['X-Amz-Signature']).toMatch(/^[0-9a-f]{64}$/);
    for (const key of Object.keys(query)) expect(AUTHENTICATOR_WHITELIST).toContain(key.toLowerCase());
  });

  it('signs the x-k8s-aws-id header with the cluster name, so the token works for that cluster only', async () => {
    const { url, query } = decodeEksToken(await sign());
    const signature = query['X-Amz-Signature'];
    expect(signature).toBe(expectedSignature(url, 'prod', lambdaCredentials.secretAccessKey));
    expect(signature).not.toBe(expectedSignature(url, 'staging', lambdaCredentials.secretAccessKey));
  });

  it('signs at the given date: another second, another X-Amz-Date and signature', async () => {
    const first = decodeEksToken(await sign()).query;
    const later = decodeEksToken(await sign({ signingDate: new Date(signingDate.getTime() + 1000) })).query;
    expect(later['X-Amz-Date']).toBe('20260101T103016Z');
    expect(later['X-Amz-Signature']).not.toBe(first['X-Amz-Signature']);
  });

  it("uses the cluster region's STS endpoint and credential scope", async () => {
    const { url, query } = decodeEksToken(await sign({ region: 'eu-west-1' }));
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(query['X-Amz-Credential']).toBe('ASIAPODLIFTTESTKEY01/20260101/eu-west-1/sts/aws4_request');
    expect(stsHostname('cn-north-1')).toBe('sts.cn-north-1.amazonaws.com.cn');
  });
});
