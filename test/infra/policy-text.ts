import type { Template } from 'aws-cdk-lib/assertions';

/**
 * Renders CloudFormation intrinsic values of a policy as readable text, so tests can list IAM
 * statements exactly: `Ref AWS::Region` → `<Region>`, `Fn::GetAtt [PodliftNodeRoleFE677E5D, Arn]`
 * → `<PodliftNodeRole.Arn>` (the logical id without its hash), `Fn::Join` concatenated, and
 * single-element or unordered lists (Action, Resource) sorted as arrays.
 */
export function policyText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(policyText);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if ('Ref' in record) {
    const ref = String(record.Ref);
    return ref.startsWith('AWS::') ? `<${ref.slice(5)}>` : `<${withoutHash(ref)}>`;
  }
  if ('Fn::GetAtt' in record) {
    const [id, attribute] = record['Fn::GetAtt'] as [string, string];
    return `<${withoutHash(id)}.${attribute}>`;
  }
  if ('Fn::Join' in record) {
    const [separator, parts] = record['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(policyText(p))).join(separator);
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, policyText(v)]));
}

function withoutHash(logicalId: string): string {
  return logicalId.replace(/[0-9A-F]{8}$/, '');
}

/** A statement with Action and Resource as sorted arrays, for order-free comparison. */
export function normalStatement(statement: Record<string, unknown>): Record<string, unknown> {
  const text = policyText(statement) as Record<string, unknown>;
  const list = (v: unknown) => (Array.isArray(v) ? [...v].sort() : [v]);
  return {
    ...text,
    Action: list(text.Action),
    ...(text.Resource === undefined ? {} : { Resource: list(text.Resource) }),
  };
}

/** Every statement of every policy attached to the role whose logical id starts with `rolePrefix`, normalised. */
export function statementsOfRole(template: Template, rolePrefix: string): Record<string, unknown>[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(rolePrefix)),
  );
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement.map(normalStatement));
}
