import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { isRetryableAwsError } from '../../shared/aws/aws-error';
import { backoffDelayMs, type RetryPolicy, withRetry } from '../../shared/aws/retry';
import { CloudError } from '../../shared/core/model/errors';
import { VirtualTime, waitsAtOnce } from '../../sim/virtual-time';

function ec2Error(name: string, httpStatusCode: number, fault: 'client' | 'server' = 'client'): Error {
  return new EC2ServiceException({
    name,
    $fault: fault,
    $metadata: { httpStatusCode },
    message: `${name} happened`,
  });
}

function policy(overrides: Partial<RetryPolicy> = {}) {
  const sleeps: number[] = [];
  const time = new VirtualTime(0);
  const p: RetryPolicy = {
    timers: waitsAtOnce(time, sleeps),
    random: () => 1 - Number.EPSILON,
    remainingTimeMs: () => 60_000 - time.now(),
    ...overrides,
  };
  return { policy: p, sleeps };
}

describe('isRetryableAwsError', () => {
  it('retries throttling, 5xx and dropped connections, but not capacity answers or caller errors', () => {
    expect(isRetryableAwsError(ec2Error('RequestLimitExceeded', 503))).toBe(true);
    expect(isRetryableAwsError(ec2Error('InternalError', 500, 'server'))).toBe(true);
    expect(isRetryableAwsError(ec2Error('SomethingNew', 502, 'server'))).toBe(true);
    expect(isRetryableAwsError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(
      true,
    );
    expect(isRetryableAwsError(ec2Error('InsufficientInstanceCapacity', 500, 'server'))).toBe(false);
    expect(isRetryableAwsError(ec2Error('InvalidParameterValue', 400))).toBe(false);
    expect(
      isRetryableAwsError(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
    ).toBe(false);
    expect(isRetryableAwsError(new TypeError('x is undefined'))).toBe(false);
  });

  it('retries what the SDK itself retries: refused connections, timeouts and bandwidth throttling', () => {
    // As @smithy/node-http-handler throws them: a refused socket keeps its code, a socket
    // timeout is only named TimeoutError.
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    const timedOut = Object.assign(new Error('the request socket timed out after 30000 ms'), {
      name: 'TimeoutError',
    });
    expect(isRetryableAwsError(refused)).toBe(true);
    expect(isRetryableAwsError(timedOut)).toBe(true);
    expect(isRetryableAwsError(ec2Error('BandwidthLimitExceeded', 400))).toBe(true);
  });
});

describe('backoffDelayMs', () => {
  it('doubles the jitter cap per retry up to the maximum', () => {
    const { policy: p } = policy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 });
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, p))).toEqual([50, 100, 200, 400, 500, 500]);
  });
});

describe('withRetry', () => {
  it('returns the first success after retryable failures', async () => {
    const { policy: p, sleeps } = policy();
    let calls = 0;
    const result = await withRetry(
      'doing x',
      async () => {
        calls += 1;
        if (calls < 3) throw ec2Error('RequestLimitExceeded', 503);
        return 'done';
      },
      p,
    );
    expect(result).toBe('done');
    expect(sleeps).toHaveLength(2);
  });

  it('starts no retry before its backoff has passed on the policy timers', async () => {
    const time = new VirtualTime();
    let calls = 0;
    const result = withRetry(
      'doing x',
      async () => {
        calls += 1;
        if (calls < 2) throw ec2Error('RequestLimitExceeded', 503);
        return 'done';
      },
      { timers: time, random: () => 0.5 },
    );

    await time.advanceAsync(0);
    expect(calls).toBe(1);
    expect(time.delays()).toEqual([50]);
    await time.advanceAsync(49);
    expect(calls).toBe(1);
    await time.advanceAsync(1);
    expect(calls).toBe(2);
    await expect(result).resolves.toBe('done');
  });

  it('rethrows an error that is not retryable unchanged, without waiting', async () => {
    const { policy: p, sleeps } = policy();
    const original = ec2Error('InvalidParameterValue', 400);
    await expect(withRetry('doing x', async () => Promise.reject(original), p)).rejects.toBe(original);
    expect(sleeps).toEqual([]);
  });

  it('stops after maxAttempts with a retryable CloudError carrying the last error', async () => {
    const { policy: p } = policy({ maxAttempts: 3 });
    const last = ec2Error('ThrottlingException', 400);
    const error = await withRetry('reading /podlift', async () => Promise.reject(last), p).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'ThrottlingException', retryable: true, cause: last });
    expect((error as Error).message).toBe(
      'reading /podlift: ThrottlingException: ThrottlingException happened (gave up after 3 attempts)',
    );
  });

  it('does not start a retry whose backoff would eat into the safety margin', async () => {
    const { policy: p, sleeps } = policy({
      remainingTimeMs: () => 3100,
      safetyMarginMs: 3000,
      random: () => 0.5,
    });
    let calls = 0;
    const error = await withRetry(
      'doing x',
      async () => {
        calls += 1;
        throw ec2Error('RequestLimitExceeded', 503);
      },
      p,
    ).catch((e: unknown) => e);
    // Backoffs of 50 and 100 ms leave at least the 3000 ms margin of the 3100 ms; 200 ms would not.
    expect(sleeps).toEqual([50, 100]);
    expect(calls).toBe(3);
    expect((error as Error).message).toContain('3100 ms of the invocation left');
  });
});
