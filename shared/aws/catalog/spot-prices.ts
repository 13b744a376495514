import { type EC2Client, paginateDescribeSpotPriceHistory } from '@aws-sdk/client-ec2';
import { CloudError } from '../../core/model/errors';
import { cloudErrorFrom } from '../aws-error';

/**
 * The product descriptions Karpenter asks spot prices for (UpdateSpotPricing). Accounts made
 * after EC2-Classic only see `Linux/UNIX`; the VPC variant is kept for older accounts.
 */
export const SPOT_PRODUCT_DESCRIPTIONS: readonly string[] = ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'];

/** Spot prices by instance type and zone, USD per hour. */
export type SpotPrices = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * The spot price in effect now for every instance type and zone: DescribeSpotPriceHistory with
 * StartTime = now returns, per pool, the price in effect at that time (and any later one), so
 * the newest observation per (type, zone) wins. Records whose price does not parse or that have
 * no timestamp are ignored, as in Karpenter.
 *
 * @param now the clock's time; never read from the system clock, so the simulator controls it
 * @throws CloudError when EC2 fails or returns no price at all (Karpenter: "no spot pricing found")
 */
export async function describeSpotPrices(ec2: EC2Client, now: number): Promise<SpotPrices> {
  const doing = `describing spot prices in ${await ec2.config.region()}`;
  const latest = new Map<string, Map<string, { price: number; at: number }>>();
  try {
    const pages = paginateDescribeSpotPriceHistory(
      { client: ec2 },
      { ProductDescriptions: [...SPOT_PRODUCT_DESCRIPTIONS], StartTime: new Date(now) },
    );
    for await (const page of pages) {
      for (const record of page.SpotPriceHistory ?? []) {
        const price = Number.parseFloat(record.SpotPrice ?? '');
        const at = record.Timestamp?.getTime();
        const type = record.InstanceType;
        const zone = record.AvailabilityZone;
        if (!Number.isFinite(price) || at === undefined) continue;
        if (type === undefined || zone === undefined) continue;
        let byZone = latest.get(type);
        if (byZone === undefined) {
          byZone = new Map();
          latest.set(type, byZone);
        }
        const seen = byZone.get(zone);
        if (seen === undefined || seen.at < at) byZone.set(zone, { price, at });
      }
    }
  } catch (error) {
    throw cloudErrorFrom(doing, error);
  }
  if (latest.size === 0) {
    throw new CloudError(`${doing}: EC2 returned no Linux/UNIX spot price`, undefined, true);
  }
  return new Map(
    [...latest].map(([type, byZone]) => [type, new Map([...byZone].map(([zone, p]) => [zone, p.price]))]),
  );
}
