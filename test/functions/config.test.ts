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
      featureGates: {
        nodeRepair: false,
        spotToSpotConsolidation: false,
        reservedCapacity: true,
        globalConsolidation: false,
        podDeletionCostManagement: false,
        candidateTaint: false,
      },
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

  // kubernetes-sigs/karpenter pkg/operator/options/options.go ParseFeatureGates.
  it("reads FEATURE_GATES as Karpenter does: each gate at Karpenter's default, other gates ignored", () => {
    const gates = (FEATURE_GATES: string) =>
      parseFunctionConfig({ ...env, FEATURE_GATES }, 'termination').featureGates;
    const off = {
      nodeRepair: false,
      spotToSpotConsolidation: false,
      reservedCapacity: true,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    };
    expect(gates('NodeRepair=true')).toStrictEqual({ ...off, nodeRepair: true });
    expect(gates('SpotToSpotConsolidation=true, NodeRepair=True')).toStrictEqual({
      nodeRepair: true,
      spotToSpotConsolidation: true,
      reservedCapacity: true,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    });
    expect(gates('GlobalConsolidation=true')).toStrictEqual({ ...off, globalConsolidation: true });
    expect(gates('PodDeletionCostManagement=true')).toStrictEqual({
      ...off,
      podDeletionCostManagement: true,
    });
    expect(gates('CandidateTaint=true')).toStrictEqual({ ...off, candidateTaint: true });
    expect(gates('NodeRepair=1,NodeRepair=F')).toStrictEqual(off);
    expect(gates('ReservedCapacity=false')).toStrictEqual({ ...off, reservedCapacity: false });
    expect(gates('StaticCapacity=true')).toStrictEqual(off);
    expect(gates('')).toStrictEqual(off);
    expect(parseFunctionConfig(env, 'disruption').featureGates).toStrictEqual(off);
  });

  it('refuses a FEATURE_GATES pair that is not Name=bool', () => {
    for (const bad of ['NodeRepair', 'NodeRepair=yes', 'NodeRepair=true=false']) {
      expect(configError({ ...env, FEATURE_GATES: bad })).toContain(
        `FEATURE_GATES must be comma-separated Name=true|false pairs, e.g. NodeRepair=true (got "${bad}")`,
      );
    }
  });
});
