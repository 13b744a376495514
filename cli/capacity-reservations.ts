import type { CapacityReservation } from '@aws-sdk/client-ec2';
import { z } from 'zod';
import { selectCapacityReservations } from '../shared/aws/nodeclass/capacity-reservation-selection';
import { validationErrorFromZod } from '../shared/core/manifests/schema-issues';
import type { EC2NodeClass } from '../shared/core/model/ec2nodeclass';
import type { ResolvedCapacityReservation } from '../shared/core/model/ec2nodeclass-status';
import { parseJsonFile } from './json-file';

/**
 * `podlift plan --capacity-reservations <file>`: the output of `aws ec2
 * describe-capacity-reservations --output json`, whose free counts (AvailableInstanceCount) an
 * EC2NodeClass's status.capacityReservations does not carry, so a plan made offline or from a
 * live cluster's objects could not fill reservations without it.
 */

const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date, as 2026-12-01T00:00:00+00:00');

/**
 * The fields of one reservation podlift reads (others, as the AWS CLI prints them, are kept and
 * ignored). Match criteria and reservation type stay strings: a value Karpenter does not know
 * skips the reservation, as its CapacityReservationFromEC2 does.
 */
const ReservationSchema = z.looseObject({
  CapacityReservationId: z.string().regex(/^cr-[0-9a-zA-Z]+$/, 'must be a capacity reservation id, cr-…'),
  InstanceType: z.string().min(1),
  AvailabilityZone: z.string().min(1),
  AvailableInstanceCount: z.int().nonnegative(),
  State: z.string().min(1),
  InstanceMatchCriteria: z.string().min(1),
  ReservationType: z.string().min(1).optional(),
  OwnerId: z.string().optional(),
  EndDate: isoDate.nullable().optional(),
  Interruptible: z.boolean().optional(),
  Tags: z.array(z.object({ Key: z.string(), Value: z.string() })).optional(),
});

const DescribeOutputSchema = z.looseObject({ CapacityReservations: z.array(ReservationSchema) });

/**
 * Parses `aws ec2 describe-capacity-reservations --output json` output.
 * @throws ValidationError naming the file, the reservation's index and field, and the bad value
 */
export function parseCapacityReservations(text: string, source: string): CapacityReservation[] {
  const json = parseJsonFile(text, source);
  const parsed = DescribeOutputSchema.safeParse(json);
  if (!parsed.success) {
    throw validationErrorFromZod(
      parsed.error,
      json,
      { source },
      'expected the output of aws ec2 describe-capacity-reservations --output json',
    );
  }
  return parsed.data.CapacityReservations.map(({ EndDate, ...r }) => ({
    ...(r as CapacityReservation),
    ...(EndDate === undefined || EndDate === null ? {} : { EndDate: new Date(EndDate) }),
  }));
}

/** Reservations a warning names before it says "and N more". */
const MAX_NAMED = 5;

/** Each EC2NodeClass's reservations from the file, and what the plan should say about them. */
export interface PlannedReservations {
  readonly byNodeClass: ReadonlyMap<string, readonly ResolvedCapacityReservation[]>;
  readonly warnings: readonly string[];
}

/**
 * The reservations of `described` each EC2NodeClass's capacityReservationSelectorTerms select,
 * as the resolver selects them from EC2 (only `active` ones, not past their end date), with
 * their free counts. Warns of a node class whose terms select none, and of reservations no
 * node class selects (their capacity is not planned).
 */
export function reservationsForPlan(
  nodeClasses: readonly EC2NodeClass[],
  described: readonly CapacityReservation[],
  source: string,
  now: number,
): PlannedReservations {
  const byNodeClass = new Map<string, readonly ResolvedCapacityReservation[]>();
  const warnings: string[] = [];
  const selected = new Set<string>();
  for (const nodeClass of nodeClasses) {
    if (nodeClass.capacityReservationSelectorTerms.length === 0) continue;
    const reservations = selectCapacityReservations(
      nodeClass.capacityReservationSelectorTerms,
      described,
      now,
    );
    if (reservations.length === 0) {
      warnings.push(
        `${source}: EC2NodeClass ${nodeClass.name}'s capacityReservationSelectorTerms select none of the file's active reservations`,
      );
      continue;
    }
    byNodeClass.set(nodeClass.name, reservations);
    for (const r of reservations) selected.add(r.id);
  }
  const unselected = described
    .map((r) => r.CapacityReservationId ?? '')
    .filter((id) => !selected.has(id))
    .sort();
  if (unselected.length > 0) {
    // A whole account's reservations may be in the file: name a few.
    const named =
      unselected.length > MAX_NAMED
        ? `${unselected.slice(0, MAX_NAMED).join(', ')} and ${unselected.length - MAX_NAMED} more`
        : unselected.join(', ');
    warnings.push(
      `${source}: ${named} ${unselected.length === 1 ? 'is' : 'are'} not planned: ` +
        'not active, ended, or selected by no EC2NodeClass',
    );
  }
  return { byNodeClass, warnings };
}

/**
 * The note of a plan made without `--capacity-reservations` for node classes that select
 * reservations: their status lists the reservations but not how many instances are free, so
 * none are planned.
 */
export function reservationsNotPlannedNote(nodeClasses: readonly EC2NodeClass[]): string | undefined {
  const selecting = nodeClasses
    .filter((c) => c.capacityReservationSelectorTerms.length > 0)
    .map((c) => c.name);
  if (selecting.length === 0) return undefined;
  return (
    `Reserved capacity is not planned: EC2NodeClass ${selecting.join(', ')} ${selecting.length === 1 ? 'selects' : 'select'} ` +
    'capacity reservations, whose free instance counts podlift cannot know offline. To plan them, pass ' +
    '--capacity-reservations <file> with the output of aws ec2 describe-capacity-reservations --output json.'
  );
}
