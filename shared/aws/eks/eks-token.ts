import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, QueryParameterBag } from '@smithy/types';

/** Prefix of an EKS (aws-iam-authenticator v1) bearer token. */
export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header that binds a token to one cluster; it is signed, never sent. */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/**
 * X-Amz-Expires of the presigned URL. STS ignores it (presigned GetCallerIdentity URLs live 15
 * minutes from X-Amz-Date); aws-iam-authenticator and `aws eks get-token` send 60, and older
 * authenticator servers insist on 0–60.
 */
export const PRESIGN_EXPIRES_SECONDS = 60;
/** How long the API server accepts a token after its X-Amz-Date. */
export const EKS_TOKEN_LIFETIME_MS = 15 * 60_000;

/** What is needed to sign one token. */
export interface EksTokenRequest {
  readonly clusterName: string;
  /** The cluster's region; the token is signed for that region's STS endpoint. */
  readonly region: string;
  readonly credentials: AwsCredentialIdentity;
  /** X-Amz-Date of the signature (from the injected clock). */
  readonly signingDate: Date;
}

/** The regional STS endpoint host the API server's authenticator accepts. */
export function stsHostname(region: string): string {
  return `sts.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/**
 * An EKS bearer token as aws-iam-authenticator and `aws eks get-token` make it: a presigned
 * `GET https://sts.<region>.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15` with
 * the `x-k8s-aws-id: <cluster>` header signed, as `k8s-aws-v1.` + unpadded base64url of the
 * URL. The API server replays the URL (adding the header) to learn the caller's IAM identity.
 */
export async function signEksToken(request: EksTokenRequest): Promise<string> {
  const hostname = stsHostname(request.region);
  const signer = new SignatureV4({
    service: 'sts',
    region: request.region,
    credentials: request.credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: request.clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: request.signingDate },
  );
  const url = `https://${hostname}/?${queryString(presigned.query ?? {})}`;
  return EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

function queryString(query: QueryParameterBag): string {
  return Object.entries(query)
    .flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((v: string | null) =>
        v === null ? encode(key) : `${encode(key)}=${encode(v)}`,
      ),
    )
    .join('&');
}

/** RFC 3986 encoding, as SigV4 canonicalizes: `encodeURIComponent` leaves `!'()*` as they are. */
function encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
