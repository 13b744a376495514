import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { CloudError } from '../../core/model/errors';
import type { Clock } from '../../core/ports/time';
import { EKS_TOKEN_LIFETIME_MS, signEksToken } from './eks-token';

/**
 * A new token is signed this long before the current one expires: aws-iam-authenticator gives
 * its tokens an expiration of X-Amz-Date + 14 minutes ("1 minute before the presigned URL
 * expires for some cushion"), so clients refresh after 14 minutes.
 */
export const EKS_TOKEN_REFRESH_MARGIN_MS = 60_000;

/** A bearer token and when to stop using it. */
export interface EksBearerToken {
  readonly token: string;
  /** When the API server stops accepting it, ms since the epoch. */
  readonly expiresAt: number;
  /** When a caller should get a new one, ms since the epoch. */
  readonly refreshAt: number;
}

/** Options of {@link EksTokenSource}. */
export interface EksTokenSourceOptions {
  readonly clusterName: string;
  /** The cluster's region. */
  readonly region: string;
  /** The Lambda's credentials, e.g. an SDK client's `config.credentials`. */
  readonly credentials: AwsCredentialIdentityProvider;
  /** Signing date and refresh timing. */
  readonly clock: Clock;
}

/**
 * Signs EKS bearer tokens with the injected credentials and hands out the same token until it
 * is 14 minutes old (or 1 minute before the credentials expire, if sooner), then signs a new
 * one at the clock's time.
 */
export class EksTokenSource {
  private current: Promise<EksBearerToken> | undefined;
  private currentRefreshAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: EksTokenSourceOptions) {}

  /**
   * A token valid now.
   * @throws CloudError when no credentials can be had.
   */
  async get(): Promise<EksBearerToken> {
    const now = this.options.clock.now();
    if (this.current === undefined || now >= this.currentRefreshAt) {
      this.currentRefreshAt = Number.POSITIVE_INFINITY;
      const next = this.sign(now);
      this.current = next;
      next.then(
        (token) => {
          if (this.current === next) this.currentRefreshAt = token.refreshAt;
        },
        () => {
          if (this.current === next) this.current = undefined;
        },
      );
    }
    return this.current;
  }

  private async sign(now: number): Promise<EksBearerToken> {
    const { clusterName, region } = this.options;
    let credentials: Awaited<ReturnType<AwsCredentialIdentityProvider>>;
    try {
      credentials = await this.options.credentials();
    } catch (error) {
      const name = (error as { name?: string }).name;
      throw new CloudError(
        `signing an EKS token for cluster ${clusterName} in ${region}: no AWS credentials: ${(error as Error).message}`,
        name,
        false,
        { cause: error },
      );
    }
    const token = await signEksToken({ clusterName, region, credentials, signingDate: new Date(now) });
    const expiresAt = Math.min(
      now + EKS_TOKEN_LIFETIME_MS,
      credentials.expiration?.getTime() ?? Number.POSITIVE_INFINITY,
    );
    return { token, expiresAt, refreshAt: expiresAt - EKS_TOKEN_REFRESH_MARGIN_MS };
  }
}
