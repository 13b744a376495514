import { type EC2Client, paginateDescribeInstanceTypeOfferings } from '@aws-sdk/client-ec2';
import { CloudError } from '../../core/model/errors';
import { cloudErrorFrom } from '../aws-error';

/** Where each instance type is offered, from DescribeInstanceTypeOfferings. */
export interface ZoneOfferings {
  /** Instance type → availability zones (names, e.g. us-east-1a) it is offered in. */
  readonly typeZones: ReadonlyMap<string, ReadonlySet<string>>;
  /** Every zone some type is offered in, sorted: the region's zones as Karpenter discovers them. */
  readonly zones: readonly string[];
}

/**
 * The availability zones each instance type is offered in (LocationType availability-zone,
 * through the SDK paginator), as Karpenter's UpdateInstanceTypeOfferings reads them.
 *
 * @throws CloudError when EC2 fails or offers nothing anywhere
 */
export async function describeZoneOfferings(ec2: EC2Client): Promise<ZoneOfferings> {
  const doing = `describing instance type offerings in ${await ec2.config.region()}`;
  const typeZones = new Map<string, Set<string>>();
  try {
    const pages = paginateDescribeInstanceTypeOfferings(
      { client: ec2 },
      { LocationType: 'availability-zone' },
    );
    for await (const page of pages) {
      for (const offering of page.InstanceTypeOfferings ?? []) {
        const type = offering.InstanceType;
        const zone = offering.Location;
        if (type === undefined || zone === undefined) continue;
        let zones = typeZones.get(type);
        if (zones === undefined) {
          zones = new Set();
          typeZones.set(type, zones);
        }
        zones.add(zone);
      }
    }
  } catch (error) {
    throw cloudErrorFrom(doing, error);
  }
  if (typeZones.size === 0) {
    throw new CloudError(`${doing}: EC2 returned no offering in any zone`, undefined, true);
  }
  const zones = [...new Set([...typeZones.values()].flatMap((z) => [...z]))].sort();
  return { typeZones, zones };
}
