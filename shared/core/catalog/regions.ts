/**
 * The availability zone names of each AWS region podlift has bundled prices for (28 regions,
 * including the two GovCloud regions), for planning without an AWS account.
 *
 * Zone *names* are only a default. In the oldest regions (us-east-1, us-west-1, ap-northeast-1,
 * ...) AWS maps zone names to physical zones (zone IDs such as use1-az4) independently per
 * account, and some accounts see different letters (us-west-1 shows two of a/b/c; new accounts
 * do not get ap-northeast-1b or ca-central-1c). The live EC2 adapter replaces this table with
 * DescribeAvailabilityZones for the real account.
 *
 * Zone counts follow AWS's AZ-ID tables (docs.aws.amazon.com global-infrastructure
 * "AWS Availability Zones", EFS "Supported Availability Zones"): us-east-1 has six,
 * us-west-2 and ap-northeast-2 four, us-west-1 two, every other region here three.
 */
const ZONE_LETTERS: Readonly<Record<string, string>> = {
  'us-east-1': 'abcdef',
  'us-east-2': 'abc',
  'us-west-1': 'ac',
  'us-west-2': 'abcd',
  'us-gov-east-1': 'abc',
  'us-gov-west-1': 'abc',
  'ca-central-1': 'abd',
  'sa-east-1': 'abc',
  'af-south-1': 'abc',
  'ap-east-1': 'abc',
  'ap-northeast-1': 'acd',
  'ap-northeast-2': 'abcd',
  'ap-northeast-3': 'abc',
  'ap-south-1': 'abc',
  'ap-south-2': 'abc',
  'ap-southeast-1': 'abc',
  'ap-southeast-2': 'abc',
  'ap-southeast-3': 'abc',
  'eu-central-1': 'abc',
  'eu-central-2': 'abc',
  'eu-north-1': 'abc',
  'eu-south-1': 'abc',
  'eu-south-2': 'abc',
  'eu-west-1': 'abc',
  'eu-west-2': 'abc',
  'eu-west-3': 'abc',
  'me-central-1': 'abc',
  'me-south-1': 'abc',
};

/** The regions this table knows, sorted. */
export const KNOWN_REGIONS: readonly string[] = Object.keys(ZONE_LETTERS).sort();

/** The default availability zone names of `region` (e.g. us-west-1 → us-west-1a, us-west-1c); undefined for an unknown region. */
export function availabilityZones(region: string): readonly string[] | undefined {
  if (!Object.hasOwn(ZONE_LETTERS, region)) return undefined;
  return [...ZONE_LETTERS[region]].map((letter) => `${region}${letter}`);
}
