import { z } from 'zod';
import { fieldPath, valueAt } from '../shared/core/manifests/schema-issues';
import { ValidationError } from '../shared/core/model/errors';
import { parseJsonFile } from './json-file';

/**
 * Spot prices given with `--spot-prices`, USD per hour: per instance type for every zone
 * (`{ "m5.large": 0.035 }`) or per zone (`{ "m5.large": { "us-east-1a": 0.035 } }`).
 */
export type SpotPriceOverrides = Readonly<Record<string, number | Readonly<Record<string, number>>>>;

const price = z.number().finite().nonnegative();
const SpotPriceFile = z.record(z.string().min(1), z.union([price, z.record(z.string().min(1), price)]));

/**
 * Parses a `--spot-prices` file.
 * @throws ValidationError naming the file, the instance type (and zone) and the bad value
 */
export function parseSpotPrices(text: string, source: string): SpotPriceOverrides {
  const json = parseJsonFile(text, source);
  const parsed = SpotPriceFile.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({
      field: issue.path.length > 0 ? fieldPath(issue.path) : '(file)',
      value: valueAt(json, issue.path),
      message:
        issue.path.length === 0
          ? 'must be an object mapping instance types to USD per hour, or to { zone: USD per hour }'
          : 'must be a non-negative number of USD per hour, or an object mapping zones to one',
    })),
    { source },
  );
}
