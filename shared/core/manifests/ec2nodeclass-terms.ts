import * as z from 'zod';
import type { AmiFamily } from '../model/ec2nodeclass';

/**
 * The selector terms of a karpenter.k8s.aws/v1 EC2NodeClass (subnets, security groups,
 * capacity reservations, AMIs), with the rules of aws/karpenter-provider-aws
 * pkg/apis/v1/ec2nodeclass.go (its kubebuilder markers and the CRD generated from them).
 *
 * Karpenter's CEL rules decide what is valid, including where they are looser than their
 * messages suggest: exclusivity on subnet, security-group and capacity-reservation terms is
 * `!self.all(...)`, so only a list in which every term mixes the fields is refused, and the
 * subnet, security-group and AMI id patterns are unanchored ("subnet-[0-9a-z]+" matches
 * "my-subnet-1"). A term that mixes fields is accepted as Karpenter accepts it, and its id
 * wins as in Karpenter's getFilterSets: {@link ignoredSelectorFields} says what is ignored.
 */

/** Families an alias may name, and the amiFamily each stands for. */
export const ALIAS_FAMILIES: Readonly<Record<string, AmiFamily>> = {
  al2: 'AL2',
  al2023: 'AL2023',
  bottlerocket: 'Bottlerocket',
  windows2019: 'Windows2019',
  windows2022: 'Windows2022',
  windows2025: 'Windows2025',
};

/** Tags of a selector term: at most 20, keys and values non-empty. */
const selectorTags = z.record(z.string(), z.string()).superRefine((tags, ctx) => {
  const keys = Object.keys(tags);
  if (keys.length > 20) ctx.addIssue({ code: 'custom', message: 'must have at most 20 tags' });
  for (const key of keys) {
    if (key === '' || tags[key] === '') {
      ctx.addIssue({ code: 'custom', message: "empty tag keys or values aren't supported", path: [key] });
    }
  }
});

type Present = Readonly<Record<string, unknown>>;

/** One exclusivity rule: `field` may not be set with any of `others`. */
type Exclusive = readonly [string, readonly string[]];

/**
 * Issues for a list of selector terms: each term must set one of `anyOf`; an exclusivity rule
 * is broken when `every` term breaks it (Karpenter's `!self.all(...)`) or, for `exists`
 * lists, when any term does (`!self.exists(...)`).
 */
function listRules(
  anyOf: readonly string[],
  exclusive: readonly Exclusive[],
  list: string,
  scope: 'all' | 'exists',
) {
  return (terms: readonly Present[], ctx: z.RefinementCtx): void => {
    terms.forEach((term, i) => {
      if (!anyOf.some((k) => term[k] !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: `expected at least one, got none, [${anyOf.map((k) => `'${k}'`).join(', ')}]`,
          path: [i],
        });
      }
    });
    for (const [field, others] of exclusive) {
      const mixing = terms.flatMap((term, i) =>
        term[field] !== undefined && others.some((k) => term[k] !== undefined) ? [i] : [],
      );
      const broken = scope === 'all' ? terms.length > 0 && mixing.length === terms.length : mixing.length > 0;
      if (!broken) continue;
      for (const i of mixing) {
        const found = others.filter((k) => terms[i][k] !== undefined);
        ctx.addIssue({
          code: 'custom',
          message: `'${field}' is mutually exclusive, cannot be set with a combination of other fields in ${list} (found ${found.join(', ')})`,
          path: [i, field],
        });
      }
    }
  };
}

const SUBNET_EXCLUSIVE: readonly Exclusive[] = [['id', ['tags']]];
const SECURITY_GROUP_EXCLUSIVE: readonly Exclusive[] = [
  ['id', ['tags', 'name']],
  ['name', ['tags', 'id']],
];
const RESERVATION_EXCLUSIVE: readonly Exclusive[] = [['id', ['tags', 'ownerID', 'instanceMatchCriteria']]];

/** subnetSelectorTerms. */
export const subnetTerms = z
  .array(
    z.strictObject({
      tags: selectorTags.optional(),
      id: z
        .string()
        .regex(/subnet-[0-9a-z]+/, 'must contain a subnet id ("subnet-0123abcd")')
        .optional(),
      cidr: z.string().optional(),
    }),
  )
  .min(1, 'subnetSelectorTerms cannot be empty')
  .max(30)
  .superRefine(listRules(['tags', 'id', 'cidr'], SUBNET_EXCLUSIVE, 'subnetSelectorTerms', 'all'));

/** securityGroupSelectorTerms. */
export const securityGroupTerms = z
  .array(
    z.strictObject({
      tags: selectorTags.optional(),
      id: z
        .string()
        .regex(/sg-[0-9a-z]+/, 'must contain a security group id ("sg-0123abcd")')
        .optional(),
      name: z.string().optional(),
    }),
  )
  .min(1, 'securityGroupSelectorTerms cannot be empty')
  .max(30)
  .superRefine(
    listRules(['tags', 'id', 'name'], SECURITY_GROUP_EXCLUSIVE, 'securityGroupSelectorTerms', 'all'),
  );

/** capacityReservationSelectorTerms. */
export const capacityReservationTerms = z
  .array(
    z.strictObject({
      tags: selectorTags.optional(),
      id: z
        .string()
        .regex(/^cr-[0-9a-z]+$/, 'must be a capacity reservation id ("cr-0123abcd")')
        .optional(),
      ownerID: z
        .string()
        .regex(/^[0-9]{12}$/, 'must be a 12-digit AWS account id')
        .optional(),
      instanceMatchCriteria: z.enum(['open', 'targeted']).optional(),
    }),
  )
  .max(30)
  .superRefine(
    listRules(
      ['tags', 'id', 'instanceMatchCriteria'],
      RESERVATION_EXCLUSIVE,
      'capacityReservationSelectorTerms',
      'all',
    ),
  );

const ALIAS_FAMILY_LIST = Object.keys(ALIAS_FAMILIES)
  .map((f) => `'${f}'`)
  .join(', ');

const alias = z
  .string()
  .max(30)
  .superRefine((value, ctx) => {
    if (!/^[a-zA-Z0-9]+@.+$/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: "'alias' is improperly formatted, must match the format 'family@version'",
      });
      return;
    }
    const [family, version] = value.split('@');
    if (!(family in ALIAS_FAMILIES)) {
      ctx.addIssue({
        code: 'custom',
        message: `family is not supported, must be one of the following: ${ALIAS_FAMILY_LIST}`,
      });
    } else if (family.startsWith('windows') && version !== 'latest') {
      ctx.addIssue({ code: 'custom', message: "windows families may only specify version 'latest'" });
    }
  });

/** amiSelectorTerms: exclusivity here is `!self.exists(...)`, so per term. */
export const amiTerms = z
  .array(
    z.strictObject({
      alias: alias.optional(),
      tags: selectorTags.optional(),
      id: z
        .string()
        .regex(/ami-[0-9a-z]+/, 'must contain an AMI id ("ami-0123abcd")')
        .optional(),
      name: z.string().optional(),
      owner: z.string().optional(),
      ssmParameter: z.string().optional(),
    }),
  )
  .min(1, 'amiSelectorTerms cannot be empty')
  .max(30)
  .superRefine(
    listRules(
      ['tags', 'id', 'name', 'alias', 'ssmParameter'],
      [
        ['id', ['alias', 'tags', 'name', 'owner']],
        ['alias', ['id', 'tags', 'name', 'owner']],
      ],
      'amiSelectorTerms',
      'exists',
    ),
  )
  .superRefine((terms, ctx) => {
    if (terms.length <= 1) return;
    terms.forEach((t, i) => {
      if (t.alias !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message:
            "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
          path: [i, 'alias'],
        });
      }
    });
  });

/** The family of the alias term, when the terms are an alias (validation allows only one). */
export function aliasAmiFamily(terms: readonly { alias?: string }[]): AmiFamily | undefined {
  const a = terms.find((t) => t.alias !== undefined)?.alias;
  return a === undefined ? undefined : ALIAS_FAMILIES[a.split('@')[0]];
}

/**
 * One warning per accepted term whose id makes other fields of it meaningless: the id selects
 * and the rest is ignored, as Karpenter's subnet, security group and capacity reservation
 * providers do (getFilterSets: a term with an id contributes only to the id filter).
 */
export function ignoredSelectorFields(spec: {
  readonly subnetSelectorTerms: readonly Present[];
  readonly securityGroupSelectorTerms: readonly Present[];
  readonly capacityReservationSelectorTerms?: readonly Present[];
}): string[] {
  const warnings: string[] = [];
  const check = (list: string, terms: readonly Present[], rules: readonly Exclusive[]) => {
    terms.forEach((term, i) => {
      for (const [field, others] of rules) {
        const ignored = others.filter((k) => term[k] !== undefined);
        if (term[field] !== undefined && ignored.length > 0) {
          warnings.push(
            `spec.${list}[${i}] sets ${field} with ${ignored.join(', ')}: the ${field} selects and ${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} ignored, as Karpenter does`,
          );
          break;
        }
      }
    });
  };
  check('subnetSelectorTerms', spec.subnetSelectorTerms, SUBNET_EXCLUSIVE);
  check('securityGroupSelectorTerms', spec.securityGroupSelectorTerms, SECURITY_GROUP_EXCLUSIVE);
  check(
    'capacityReservationSelectorTerms',
    spec.capacityReservationSelectorTerms ?? [],
    RESERVATION_EXCLUSIVE,
  );
  return warnings;
}
