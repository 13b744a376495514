import type * as z from 'zod';
import { ConfigurationError, type ValidationIssue } from '../model/errors';

/**
 * Reads a process's configuration from its environment with a zod schema over the variables
 * `variables` names, blank values counting as unset (a Deployment or a CloudFormation template
 * often sets a variable to ""). Pure: the caller passes `process.env`.
 * @throws ConfigurationError naming every missing or bad variable and its value.
 */
export function parseEnvironment<S extends z.ZodType>(
  schema: S,
  variables: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
  subject: string,
): z.infer<S> {
  const relevant: Record<string, string> = {};
  for (const name of Object.keys(variables)) {
    const value = env[name]?.trim();
    if (value) relevant[name] = value;
  }
  const result = schema.safeParse(relevant);
  if (result.success) return result.data;
  const issues: ValidationIssue[] = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? 'environment');
    return { field, value: relevant[field], message: issue.message };
  });
  throw new ConfigurationError(issues, subject);
}
