import { type AuthorizationRequest, type Decision, evaluate, type PolicyDocument } from './evaluate';

/** Who makes a call through a client: an assumed role and the identity policies it holds. */
export interface Caller {
  /** The session's ARN as AWS names it in its messages: `arn:aws:sts::<account>:assumed-role/<role>/<session>`. */
  readonly arn: string;
  readonly policies: readonly PolicyDocument[];
}

/** A request the caller's policies do not allow, and why. */
export interface Denial {
  readonly request: AuthorizationRequest;
  readonly decision: Exclude<Decision, { effect: 'Allow' }>;
}

/**
 * The first of `requests` that `caller`'s policies do not allow, each evaluated with the
 * context AWS adds to every request (`aws:RequestedRegion`), or undefined when all are allowed.
 */
export function firstDenial(
  caller: Caller,
  requests: readonly AuthorizationRequest[],
  region: string,
): Denial | undefined {
  for (const request of requests) {
    const full = { ...request, context: { 'aws:RequestedRegion': region, ...request.context } };
    const decision = evaluate(caller.policies, full);
    if (decision.effect !== 'Allow') return { request: full, decision };
  }
  return undefined;
}

/**
 * AWS's sentence for a denied request (IAM User Guide, "Troubleshoot access denied error
 * messages"): `User: <arn> is not authorized to perform: <action> on resource: <arn> because no
 * identity-based policy allows the <action> action` (or `with an explicit deny in an
 * identity-based policy`).
 */
export function deniedSentence(caller: Caller, denial: Denial): string {
  const { action, resource } = denial.request;
  const because =
    denial.decision.effect === 'ExplicitDeny'
      ? 'with an explicit deny in an identity-based policy'
      : `because no identity-based policy allows the ${action} action`;
  return `User: ${caller.arn} is not authorized to perform: ${action} on resource: ${resource} ${because}`;
}

/**
 * EC2's UnauthorizedOperation message: the sentence and an encoded authorization failure
 * message. AWS encrypts the latter for sts:DecodeAuthorizationMessage; the fake encodes the same
 * fields (allowed, explicitDeny, the request's action, resource and condition context) in
 * base64 JSON, so a test can read what was refused.
 */
export function unauthorizedOperationMessage(caller: Caller, denial: Denial): string {
  const decoded = {
    allowed: false,
    explicitDeny: denial.decision.effect === 'ExplicitDeny',
    context: {
      principal: { arn: caller.arn },
      action: denial.request.action,
      resource: denial.request.resource,
      conditions: denial.request.context,
    },
  };
  const encoded = Buffer.from(JSON.stringify(decoded)).toString('base64');
  return `You are not authorized to perform this operation. ${deniedSentence(caller, denial)}. Encoded authorization failure message: ${encoded}`;
}

/** The fields of an encoded authorization failure message from {@link unauthorizedOperationMessage}. */
export function decodeAuthorizationMessage(message: string): {
  readonly explicitDeny: boolean;
  readonly context: { readonly action: string; readonly resource: string; readonly conditions: object };
} {
  const encoded = /Encoded authorization failure message: (\S+)$/.exec(message)?.[1];
  if (encoded === undefined) throw new Error(`no encoded authorization failure message in: ${message}`);
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
}

/** aws:RequestTag/<key> for each tag and aws:TagKeys, the context of a request that sets `tags`. */
export function requestTagContext(
  tags: readonly { readonly Key?: string; readonly Value?: string }[],
): Record<string, string | string[]> {
  const context: Record<string, string | string[]> = {};
  for (const tag of tags) if (tag.Key !== undefined) context[`aws:RequestTag/${tag.Key}`] = tag.Value ?? '';
  const keys = tags.flatMap((t) => (t.Key === undefined ? [] : [t.Key]));
  if (keys.length > 0) context['aws:TagKeys'] = keys;
  return context;
}

/** aws:ResourceTag/<key> for each tag of the resource a request acts on. */
export function resourceTagContext(
  tags: readonly { readonly Key?: string; readonly Value?: string }[] | undefined,
): Record<string, string> {
  const context: Record<string, string> = {};
  for (const tag of tags ?? [])
    if (tag.Key !== undefined) context[`aws:ResourceTag/${tag.Key}`] = tag.Value ?? '';
  return context;
}
