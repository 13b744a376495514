import { ValidationError } from '../shared/core/model/errors';

/**
 * The JSON of a file a flag names (`--spot-prices`, `--capacity-reservations`).
 * @throws ValidationError naming the file when it is not JSON
 */
export function parseJsonFile(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ValidationError(
      [{ field: '(file)', value: undefined, message: `not valid JSON: ${(e as Error).message}` }],
      { source },
      { cause: e },
    );
  }
}
