import * as z from 'zod';
import { issuesFromZod } from '../../core/manifests/schema-issues';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { ValidationError, type ValidationIssue } from '../../core/model/errors';
import { clusterDnsAddress, ipFamilyOfCidr } from './cluster-dns';

const KUBERNETES_VERSION = /^v?(\d+)\.(\d+)(?:\.\d+)?$/;

/**
 * The SSM SecureString parameter that tells podlift how to reach a non-EKS (kOps) cluster:
 * a JSON object with the API server endpoint, its CA (base64 PEM, as in a kubeconfig's
 * `certificate-authority-data`), a service-account token, the Kubernetes version and the
 * service CIDR; optionally the cluster DNS address when it is not the 10th of the service CIDR.
 */
export const KopsClusterParameterSchema = z.strictObject({
  endpoint: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }),
  certificateAuthority: z.base64({ error: 'must be the base64 of the CA PEM (certificate-authority-data)' }),
  token: z.string().min(1, 'must be a non-empty service-account token'),
  kubernetesVersion: z.string().regex(KUBERNETES_VERSION, 'must be a Kubernetes version such as "1.31"'),
  serviceCidr: z.string(),
  clusterDns: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IP address' }).optional(),
});

/** The parsed parameter. */
export type KopsClusterParameter = z.infer<typeof KopsClusterParameterSchema>;

/** A cluster's info and service-account token read from its parameter. */
export interface KopsClusterAccessData {
  readonly info: ClusterInfo;
  readonly token: string;
}

/**
 * Parses and validates the parameter's value. Errors name the parameter and the field; values
 * are echoed only for public fields, never the token, unknown fields or the raw value.
 * @throws ValidationError on anything but a valid parameter.
 */
export function parseKopsClusterParameter(
  value: string,
  parameterName: string,
  clusterName: string,
): KopsClusterAccessData {
  const location = { source: `SSM parameter ${parameterName}` };
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    // V8's message quotes the text around the error, which may be the token: keep only the position.
    const message = `not valid JSON${jsonErrorPosition(value, error)}`;
    throw new ValidationError([{ field: '(value)', value: '(redacted)', message }], location);
  }
  const parsed = KopsClusterParameterSchema.safeParse(json);
  if (!parsed.success) {
    const issues = issuesFromZod(
      parsed.error.issues,
      json,
      'expected endpoint, certificateAuthority, token, kubernetesVersion, serviceCidr, clusterDns',
    );
    // No `cause`: nothing derived from the input (the token) should reach logs through it.
    throw new ValidationError(issues.map(redactSecrets), location);
  }
  const p = parsed.data;
  try {
    const [, major, minor] = KUBERNETES_VERSION.exec(p.kubernetesVersion)!;
    const info: ClusterInfo = {
      name: clusterName,
      endpoint: p.endpoint,
      certificateAuthority: p.certificateAuthority,
      kubernetesVersion: `${major}.${minor}`,
      serviceCidr: p.serviceCidr,
      ipFamily: ipFamilyOfCidr(p.serviceCidr),
      clusterDns: p.clusterDns ?? clusterDnsAddress(p.serviceCidr),
    };
    return { info, token: p.token };
  } catch (error) {
    if (error instanceof ValidationError) throw error.at(location);
    throw error;
  }
}

/** Fields whose values may appear in error messages; any other (token, unknown keys, the root) may hold a secret. */
const PUBLIC_FIELDS = new Set([
  'endpoint',
  'certificateAuthority',
  'kubernetesVersion',
  'serviceCidr',
  'clusterDns',
]);

function redactSecrets(issue: ValidationIssue): ValidationIssue {
  const field = issue.field === '' ? '(value)' : issue.field;
  const value = PUBLIC_FIELDS.has(field) || issue.value === undefined ? issue.value : '(redacted)';
  return { ...issue, field, value };
}

/** `at line L, column C` of the first syntax error, without any of the text. */
function jsonErrorPosition(text: string, error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message)?.[1];
  if (position === undefined) return '';
  const before = text.slice(0, Number(position)).split('\n');
  return ` at line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
