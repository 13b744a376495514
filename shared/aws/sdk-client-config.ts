import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * The one place production AWS SDK v3 clients get their configuration. podlift's own retry
 * (retry.ts) knows the Lambda's deadline and the error codes worth retrying, so the SDK must not
 * retry underneath it: with the SDK's default of 3 attempts, 8 of ours would make 24 calls and
 * sleep past the deadline. Composition roots (the watcher, the functions) build every client as
 * `new EC2Client(sdkClientConfig({ region }))`.
 */

/** What differs between clients: where they talk and, outside Lambda and EKS, as whom. */
export interface SdkClientConfigOptions {
  readonly region: string;
  /** @default the SDK's default credential chain (Lambda's role, EKS Pod Identity, ...) */
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

/** The configuration every production SDK client is built with. */
export interface SdkClientConfig {
  readonly region: string;
  /** Always 1: podlift's withRetry is the only layer that retries. */
  readonly maxAttempts: 1;
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

/** Client configuration with the SDK's retries off; region and credentials pass through. */
export function sdkClientConfig(options: SdkClientConfigOptions): SdkClientConfig {
  return {
    region: options.region,
    maxAttempts: 1,
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  };
}
