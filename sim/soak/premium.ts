import type { Instance } from '@aws-sdk/client-ec2';
import type { PriceTable } from '../../shared/core/catalog/instance-type';
import { parseProviderID } from '../../shared/core/model/nodeclaim';
import type { KubeObject } from '../fakes/kube';

/**
 * What EC2's choice among a NodeClaim's options adds to a soak point's cost. podlift, as
 * Karpenter, hands CreateFleet every instance type a NodeClaim allows and, for spot,
 * `price-capacity-optimized`, which takes the deepest pools before the cheapest (the fake EC2
 * ranks them so: sim/fakes/aws/ec2/fleet-capacity.ts `allocationOrder`). The planner and the bound
 * count each node at its cheapest option, so this part of cost ÷ bound is EC2's allocation, not
 * the plan: no consolidation rule removes it without giving up the deep pools.
 */

/** A NodeClaim as the premium reads it. */
interface ClaimFields {
  readonly spec?: {
    readonly requirements?: readonly {
      readonly key: string;
      readonly operator: string;
      readonly values?: readonly string[];
    }[];
  };
  readonly status?: { readonly providerID?: string };
}

/** $/h of `type` in `zone` at the world's prices: its zone's spot price for spot, else on-demand. */
function priceOf(prices: PriceTable, type: string, zone: string, spot: boolean): number | undefined {
  return (spot ? prices.spot.get(type)?.get(zone) : undefined) ?? prices.onDemand.get(type);
}

/**
 * $/h the running and pending instances cost above their NodeClaims' cheapest options: for each
 * instance, its price less the cheapest of the instance types its NodeClaim's
 * `node.kubernetes.io/instance-type In` requirement allows, in the instance's zone and capacity
 * type (the options EC2 chose among). Instances without a NodeClaim or without that requirement
 * add nothing.
 */
export function allocationPremium(
  instances: readonly Instance[],
  nodeClaims: readonly KubeObject[],
  prices: PriceTable,
): number {
  const optionsOf = new Map<string, readonly string[]>();
  for (const claim of nodeClaims) {
    const fields = claim as ClaimFields;
    const id = parseProviderID(fields.status?.providerID ?? '')?.instanceId;
    const types = fields.spec?.requirements?.find(
      (r) => r.key === 'node.kubernetes.io/instance-type' && r.operator === 'In',
    )?.values;
    if (id !== undefined && types) optionsOf.set(id, types);
  }
  let premium = 0;
  for (const instance of instances) {
    const state = instance.State?.Name;
    const options = optionsOf.get(instance.InstanceId ?? '');
    if ((state !== 'pending' && state !== 'running') || !options) continue;
    const zone = instance.Placement?.AvailabilityZone ?? '';
    const spot = instance.InstanceLifecycle === 'spot';
    const paid = priceOf(prices, instance.InstanceType ?? '', zone, spot) ?? 0;
    const cheapest = Math.min(
      ...options.map((t) => priceOf(prices, t, zone, spot) ?? Number.POSITIVE_INFINITY),
    );
    if (paid > cheapest) premium += paid - cheapest;
  }
  return premium;
}
