import { resourceValue } from '../../../shared/core/model/quantity';
import type { Resources } from '../../../shared/core/model/resources';

/** Resource quantities as written in YAML: `'500m'`, `'1Gi'`, `2`. */
export type QuantityInput = Readonly<Record<string, string | number>>;

/** Converts quantities ('500m', '1Gi', 2) to canonical units via resourceValue. */
export function resources(quantities: QuantityInput): Resources {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(quantities)) out[name] = resourceValue(name, q);
  return out;
}
