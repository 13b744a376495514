import type * as z from 'zod';
import { validationErrorFromZod } from '../manifests/schema-issues';
import type { ValidationError } from '../model/errors';

/** The ValidationError for an event detail that does not match its contract. */
export function detailValidationError(
  error: z.ZodError,
  detail: unknown,
  detailType: string,
): ValidationError {
  return validationErrorFromZod(
    error,
    detail,
    { source: 'EventBridge event', object: `${detailType} detail` },
    'not part of the schema',
  );
}
