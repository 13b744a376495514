import type { Clock } from '../../../../shared/core/ports/time';

/** Builds EC2's SDK-shaped error for an error code. */
export type Ec2Fail = (code: string, message: string) => Error;

/**
 * What every API family of the fake EC2 shares: the account and region it plays, the clock,
 * the id sequence and the way errors are shaped. One context per `FakeEc2`, so ids stay unique
 * across families and a run with the same calls produces the same ids.
 */
export interface Ec2Context {
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  readonly availabilityZones: readonly string[];
  /** The VPC resources land in when their seed names none. */
  readonly defaultVpcId: string;
  readonly fail: Ec2Fail;
  /** The next id of the sequence, as `length` hex digits. */
  hexId(length: number): string;
  /** How many ids the sequence has handed out. */
  serial(): number;
  /** A UUID from the id sequence. */
  uuid(): string;
  /** The zone id of a zone name, e.g. `use1-az1` for `us-east-1a`. */
  zoneId(zone: string): string;
}

/** Options of {@link ec2Context}. */
export interface Ec2ContextOptions {
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  readonly availabilityZones: readonly string[];
  readonly fail: Ec2Fail;
}

/** A context whose ids count up from 1. */
export function ec2Context(options: Ec2ContextOptions): Ec2Context {
  let counter = 0;
  const hexId = (length: number) => {
    counter += 1;
    return counter.toString(16).padStart(length, '0');
  };
  return {
    ...options,
    defaultVpcId: 'vpc-0000000000000000a',
    hexId,
    serial: () => counter,
    uuid: () => {
      const hex = hexId(32);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
    zoneId: (zone) => {
      const [area = '', direction = '', number = ''] = options.region.split('-');
      const letter = zone.slice(options.region.length);
      return `${area}${direction.charAt(0)}${number}-az${letter.charCodeAt(0) - 96}`;
    },
  };
}
