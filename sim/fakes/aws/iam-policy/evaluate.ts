/**
 * AWS's evaluation of identity-based policies, as the IAM User Guide's "Policy evaluation logic"
 * and "IAM JSON policy elements: Condition operators" describe it, for one principal in one
 * account (no SCPs, permission boundaries or session policies: podlift's roles have none):
 *
 * - a request is allowed when some statement allows it and no statement denies it; an explicit
 *   Deny wins over any Allow; with no matching statement it is implicitly denied;
 * - a statement matches when its Action (or NotAction), its Resource (or NotResource) and every
 *   condition match; actions compare case-insensitively, resources case-sensitively, both with
 *   `*` and `?` wildcards;
 * - within Condition, all operators must hold, and within an operator all keys (AND); a key's
 *   value list is an OR; a key absent from the request fails every operator except the negated
 *   ones, `...IfExists` and `Null`; `ForAllValues:` holds when every value of the request is
 *   among the policy's (vacuously when the key is absent), `ForAnyValue:` when one is.
 *
 * Written for podlift rather than taken from npm: the one maintained evaluator there
 * (@cloud-copilot/iam-simulate) is AGPL-3.0, which this Apache-2.0 project does not take in.
 */

/** One statement of a policy document, as IAM's JSON grammar has it (values already resolved). */
export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly NotResource?: string | readonly string[];
  readonly Condition?: Readonly<
    Record<string, Readonly<Record<string, string | boolean | readonly string[]>>>
  >;
}

/** A policy document: its statements. */
export interface PolicyDocument {
  readonly Statement: readonly PolicyStatement[];
}

/** The request context: condition keys to their values (a list for multi-valued keys such as aws:TagKeys). */
export type RequestContext = Readonly<Record<string, string | readonly string[]>>;

/** One authorization question: may the principal do `action` on `resource` with this context? */
export interface AuthorizationRequest {
  /** `service:Operation`, e.g. `ec2:CreateFleet`. */
  readonly action: string;
  /** The resource's ARN, or `*` for actions without resource-level permissions. */
  readonly resource: string;
  readonly context: RequestContext;
}

/** What the evaluation concluded, and which statement decided it. */
export type Decision =
  | { readonly effect: 'Allow'; readonly sid?: string }
  | { readonly effect: 'ExplicitDeny'; readonly sid?: string }
  | { readonly effect: 'ImplicitDeny' };

/** Evaluates `request` against every statement of `policies`. */
export function evaluate(policies: readonly PolicyDocument[], request: AuthorizationRequest): Decision {
  let allowedBy: PolicyStatement | undefined;
  const context = lowerCaseKeys(request.context);
  for (const policy of policies) {
    for (const statement of policy.Statement) {
      if (!statementMatches(statement, request, context)) continue;
      if (statement.Effect === 'Deny') return withSid('ExplicitDeny', statement);
      allowedBy ??= statement;
    }
  }
  return allowedBy === undefined ? { effect: 'ImplicitDeny' } : withSid('Allow', allowedBy);
}

function withSid(effect: 'Allow' | 'ExplicitDeny', statement: PolicyStatement): Decision {
  return statement.Sid === undefined ? { effect } : { effect, sid: statement.Sid };
}

const list = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value;

/** Condition keys are case-insensitive (IAM User Guide, "Condition element"): the context by lower-cased key. */
function lowerCaseKeys(context: RequestContext): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, readonly string[]>();
  for (const [key, value] of Object.entries(context)) map.set(key.toLowerCase(), list(value));
  return map;
}

function statementMatches(
  statement: PolicyStatement,
  request: AuthorizationRequest,
  context: ReadonlyMap<string, readonly string[]>,
): boolean {
  const actionMatches = (patterns: readonly string[]) =>
    patterns.some((p) => wildcardMatch(p, request.action, true));
  if (
    statement.Action !== undefined
      ? !actionMatches(list(statement.Action))
      : actionMatches(list(statement.NotAction))
  )
    return false;
  const resourceMatches = (patterns: readonly string[]) =>
    patterns.some((p) => wildcardMatch(p, request.resource, false));
  if (
    statement.Resource !== undefined
      ? !resourceMatches(list(statement.Resource))
      : resourceMatches(list(statement.NotResource))
  )
    return false;
  return Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, values]) =>
      conditionHolds(operator, context.get(key.toLowerCase()), conditionValues(values)),
    ),
  );
}

function conditionValues(values: string | boolean | readonly string[]): readonly string[] {
  return typeof values === 'boolean' ? [String(values)] : list(values);
}

/** Compiled patterns: every AWS call of a simulation evaluates the same few dozen. */
const compiled = new Map<string, RegExp>();

/** Whether `value` matches `pattern`, where `*` is any run of characters and `?` one character. */
export function wildcardMatch(pattern: string, value: string, ignoreCase: boolean): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) {
    return ignoreCase ? pattern.toLowerCase() === value.toLowerCase() : pattern === value;
  }
  const key = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let regex = compiled.get(key);
  if (regex === undefined) {
    const source = pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, ignoreCase ? 'is' : 's');
    compiled.set(key, regex);
  }
  return regex.test(value);
}

type Comparison = (requestValue: string, policyValue: string) => boolean;

const COMPARISONS: Readonly<Record<string, { readonly compare: Comparison; readonly negated: boolean }>> = {
  StringEquals: { compare: (a, b) => a === b, negated: false },
  StringNotEquals: { compare: (a, b) => a === b, negated: true },
  StringEqualsIgnoreCase: { compare: (a, b) => a.toLowerCase() === b.toLowerCase(), negated: false },
  StringNotEqualsIgnoreCase: { compare: (a, b) => a.toLowerCase() === b.toLowerCase(), negated: true },
  StringLike: { compare: (a, b) => wildcardMatch(b, a, false), negated: false },
  StringNotLike: { compare: (a, b) => wildcardMatch(b, a, false), negated: true },
  ArnEquals: { compare: (a, b) => wildcardMatch(b, a, false), negated: false },
  ArnLike: { compare: (a, b) => wildcardMatch(b, a, false), negated: false },
  ArnNotEquals: { compare: (a, b) => wildcardMatch(b, a, false), negated: true },
  ArnNotLike: { compare: (a, b) => wildcardMatch(b, a, false), negated: true },
  Bool: { compare: (a, b) => a.toLowerCase() === b.toLowerCase(), negated: false },
  NumericEquals: { compare: (a, b) => Number(a) === Number(b), negated: false },
  NumericNotEquals: { compare: (a, b) => Number(a) === Number(b), negated: true },
  NumericLessThan: { compare: (a, b) => Number(a) < Number(b), negated: false },
  NumericLessThanEquals: { compare: (a, b) => Number(a) <= Number(b), negated: false },
  NumericGreaterThan: { compare: (a, b) => Number(a) > Number(b), negated: false },
  NumericGreaterThanEquals: { compare: (a, b) => Number(a) >= Number(b), negated: false },
};

function conditionHolds(
  operator: string,
  requestValues: readonly string[] | undefined,
  policyValues: readonly string[],
): boolean {
  if (operator === 'Null') {
    // Null: true means the key must be absent, false that it must be present.
    const absent = requestValues === undefined || requestValues.length === 0;
    return policyValues.some((v) => (v.toLowerCase() === 'true') === absent);
  }
  const [qualifier, rest] = operator.includes(':') ? operator.split(':', 2) : [undefined, operator];
  const ifExists = (rest as string).endsWith('IfExists');
  const name = ifExists ? (rest as string).slice(0, -'IfExists'.length) : (rest as string);
  const comparison = COMPARISONS[name];
  if (comparison === undefined) {
    throw new Error(`IAM policy evaluation: condition operator ${operator} is not modelled`);
  }
  const absent = requestValues === undefined || requestValues.length === 0;
  const matchesOne = (value: string) => policyValues.some((p) => comparison.compare(value, p));
  if (qualifier === 'ForAllValues') {
    if (absent) return true;
    return requestValues.every((v) => (comparison.negated ? !matchesOne(v) : matchesOne(v)));
  }
  if (qualifier === 'ForAnyValue') {
    if (absent) return false;
    return requestValues.some((v) => (comparison.negated ? !matchesOne(v) : matchesOne(v)));
  }
  if (qualifier !== undefined) {
    throw new Error(`IAM policy evaluation: condition set qualifier ${qualifier} is not modelled`);
  }
  if (absent) return ifExists || comparison.negated;
  const any = requestValues.some(matchesOne);
  return comparison.negated ? !any : any;
}
