/** The fake EC2: `FakeEc2`, what it is seeded with, and the instance type record builder. */
export type { CapacityReservationSeed } from './capacity-reservations';
export type { OfferingSeed, SpotPriceSeed } from './catalog';
export { FakeEc2, type FakeEc2Options } from './fake-ec2';
export type { MissingLaunchTemplateAnswer } from './fleet';
export type { CapacityType, Pool, PoolSelector } from './fleet-capacity';
export type { InstanceProfileDirectory } from './fleet-launch-checks';
export type { ImageSeed } from './images';
export type { InstanceEventSeed, InstanceStatusChange } from './instance-status';
export { type InstanceTypeSpec, instanceTypeInfo } from './instance-type-info';
export type { InstanceTimings, SpotReclaim } from './instances';
export type { SecurityGroupSeed, SubnetSeed } from './network';
export type { PlacementGroupSeed } from './placement-groups';
export type { TagRecord } from './tags';
