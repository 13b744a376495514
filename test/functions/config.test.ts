import { describe, expect, it } from 'vitest';
import { parseFunctionConfig } from '../../functions/config';
import { isConfigurationError } from '../../shared/core/model/errors';

const env = { CLUSTER_NAME: 'demo', AWS_REGION: 'us-east-1', EVENT_BUS_NAME: 'podlift-demo' };

function configError(values: Record<string, string | undefined>): string {
  try {
    parseFunctionConfig(values, 'provisioner');
  } catch (error) {
    expect(isConfigurationError(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('parseFunctionConfig', () => {
  it('reads the required variables and defaults the rest', () => {
    expect(parseFunctionConfig(env, 'provisioner')).toStrictEqual({
      clusterName: 'demo',
      region: 'us-east-1',
      eventBusName: 'podlift-demo',
      clusterAccess: 'eks',
      leaseNamespace: 'podlift',
      leaseName: 'podlift',
      rebalanceAction: 'event',
    });
  });

  it('takes the optional ones when set, blank counting as unset', () => {
    const config = parseFunctionConfig(
      {
        ...env,
        CLUSTER_ACCESS: 'kops',
        LEASE_NAME: 'autoscaler',
        LEASE_NAMESPACE: ' ',
        REBALANCE_ACTION: 'replace',
      },
      'interruption',
    );
    expect([config.clusterAccess, config.leaseName, config.leaseNamespace, config.rebalanceAction]).toEqual([
      'kops',
      'autoscaler',
      'podlift',
      'replace',
    ]);
  });

  it('names every missing or bad variable, its value and the function', () => {
    const message = configError({ AWS_REGION: 'Virginia', EVENT_BUS_NAME: 'b', CLUSTER_ACCESS: 'gke' });
    expect(message).toContain('invalid provisioner function configuration');
    expect(message).toContain('CLUSTER_NAME is missing');
    expect(message).toContain('AWS_REGION must be a region name such as us-east-1 (got "Virginia")');
    expect(message).toContain('CLUSTER_ACCESS must be eks or kops (got "gke")');
  });
});
