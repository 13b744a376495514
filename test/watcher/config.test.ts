import { describe, expect, it } from 'vitest';
import { isConfigurationError } from '../../shared/core/model/errors';
import { parseWatcherConfig } from '../../watcher/config';

const inCluster = { KUBERNETES_SERVICE_HOST: '10.100.0.1', KUBERNETES_SERVICE_PORT: '443' };
const complete = {
  CLUSTER_NAME: 'prod',
  EVENT_BUS_NAME: 'podlift-prod',
  AWS_REGION: 'eu-west-1',
  ...inCluster,
};

function failure(env: Record<string, string | undefined>): string {
  try {
    parseWatcherConfig(env);
  } catch (error) {
    expect(isConfigurationError(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('parseWatcherConfig', () => {
  it('applies the defaults: 1 s idle, 10 s capacity max, 4 s pending-pods max, port 8080', () => {
    expect(parseWatcherConfig(complete)).toEqual({
      clusterName: 'prod',
      eventBusName: 'podlift-prod',
      region: 'eu-west-1',
      batchIdleMs: 1000,
      batchMaxMs: 10_000,
      podsPendingMaxMs: 4000,
      port: 8080,
    });
  });

  it('reads the optional variables', () => {
    expect(
      parseWatcherConfig({
        ...complete,
        BATCH_IDLE_MS: '250',
        BATCH_MAX_MS: '5000',
        PODS_PENDING_MAX_MS: '2000',
        PORT: '9090',
      }),
    ).toMatchObject({ batchIdleMs: 250, batchMaxMs: 5000, podsPendingMaxMs: 2000, port: 9090 });
  });

  it('names every missing variable, counting blank ones as missing', () => {
    const message = failure({ ...inCluster, EVENT_BUS_NAME: '  ' });
    expect(message).toMatch(/^invalid watcher configuration: /);
    expect(message).toContain('CLUSTER_NAME is missing');
    expect(message).toContain('EVENT_BUS_NAME is missing');
    expect(message).toContain('AWS_REGION is missing');
    expect(message).not.toContain('BATCH_IDLE_MS');
  });

  it('says it must run in a pod when the in-cluster variables are absent', () => {
    expect(failure({ ...complete, KUBERNETES_SERVICE_HOST: undefined })).toBe(
      'invalid watcher configuration: KUBERNETES_SERVICE_HOST is missing: set by Kubernetes in every pod: the watcher runs in-cluster',
    );
  });

  it.each([
    [
      'BATCH_IDLE_MS',
      'soon',
      'BATCH_IDLE_MS must be a whole number of milliseconds from 1 to 600000 (got "soon")',
    ],
    ['BATCH_IDLE_MS', '0', 'BATCH_IDLE_MS must be at least 1 (got "0")'],
    ['PORT', '70000', 'PORT must be at most 65535 (got "70000")'],
    ['PODS_PENDING_MAX_MS', '0', 'PODS_PENDING_MAX_MS must be at least 1 (got "0")'],
    ['AWS_REGION', 'Ireland', 'AWS_REGION must be a region name such as us-east-1 (got "Ireland")'],
    ['CLUSTER_NAME', '-prod', 'CLUSTER_NAME must be 1-100 letters, digits, hyphens or underscores'],
    ['BATCH_MAX_MS', '500', 'BATCH_MAX_MS must be at least BATCH_IDLE_MS (got "500")'],
  ])('rejects %s=%s with the value', (name, value, expected) => {
    expect(failure({ ...complete, [name]: value })).toContain(expected);
  });
});
