import { ValidationError } from './errors';

/**
 * Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity), parsed exactly.
 * A quantity is `<sign><digits>[.<digits>]<suffix>` where the suffix is a binary SI suffix
 * (Ki Mi Gi Ti Pi Ei), a decimal SI suffix (n u m "" k M G T P E) or a decimal exponent
 * (e3, E-2).
 */

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** An exact rational number num/den (den > 0). */
interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

function parseRational(text: string): Rational | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign, number, suffix, exponent] = m;
  const [whole, fraction = ''] = number.split('.');
  let num = BigInt((whole || '0') + fraction);
  let den = 10n ** BigInt(fraction.length);
  if (sign === '-') num = -num;
  if (suffix !== undefined && suffix in BINARY) {
    num *= BINARY[suffix];
  } else {
    const exp = exponent !== undefined ? Number(exponent) : DECIMAL[suffix ?? ''];
    if (Math.abs(exp) > 64) return undefined;
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  return { num, den };
}

/**
 * num/den rounded away from zero, as Quantity.Value() and MilliValue() round
 * (k8s.io/apimachinery pkg/api/resource/scale_int.go `negativeScaleInt64` and inf.RoundUp):
 * 1.5 → 2 and -1.5 → -2.
 */
function ceilDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  if (num % den === 0n) return q;
  return num > 0n ? q + 1n : q - 1n;
}

/**
 * The quantity in milli-units, rounded up as Quantity.MilliValue() does.
 * @throws ValidationError for text that is not a quantity.
 */
export function parseQuantityMilli(text: string): bigint {
  const r = typeof text === 'string' ? parseRational(text) : undefined;
  if (!r) {
    throw new ValidationError([{ field: '', value: text, message: 'not a Kubernetes quantity' }]);
  }
  return ceilDiv(r.num * 1000n, r.den);
}

/** The quantity's value rounded up to an integer, as Quantity.Value() does. */
export function parseQuantity(text: string): bigint {
  const r = typeof text === 'string' ? parseRational(text) : undefined;
  if (!r) {
    throw new ValidationError([{ field: '', value: text, message: 'not a Kubernetes quantity' }]);
  }
  return ceilDiv(r.num, r.den);
}

/** Whether `text` is a valid quantity. */
export function isQuantity(text: unknown): text is string {
  return typeof text === 'string' && parseRational(text) !== undefined;
}

/**
 * A quantity in the canonical unit of resource `name`: millicores for `cpu`, units for
 * everything else (bytes for memory and storage). Numbers (YAML `cpu: 2`) are accepted.
 */
export function resourceValue(name: string, quantity: string | number): number {
  const text = typeof quantity === 'number' ? String(quantity) : quantity;
  const milli = name === 'cpu';
  const key = `${milli ? 'm' : 'u'}${text}`;
  const known = resourceValues.get(key);
  if (known !== undefined) return known;
  const v = milli ? parseQuantityMilli(text) : parseQuantity(text);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ValidationError([{ field: name, value: quantity, message: 'quantity too large' }]);
  }
  if (resourceValues.size >= MAX_REMEMBERED_VALUES) resourceValues.clear();
  resourceValues.set(key, Number(v));
  return Number(v);
}

/**
 * Quantities already converted, by unit (milli or whole) and text. A cluster's 10,000 pods
 * repeat a few dozen quantities ("500m", "512Mi"), and the exact BigInt parse was a fifth of
 * reading them. Same text, same value: remembering is invisible but for time; bounded, since a
 * warm container lives for hours. Only valid quantities are remembered.
 */
const resourceValues = new Map<string, number>();
const MAX_REMEMBERED_VALUES = 4096;

/** Formats a canonical value back to a short exact quantity string ("1500m", "2", "512Mi", "1Gi"). */
export function formatQuantity(name: string, value: number): string {
  if (name === 'cpu') return value % 1000 === 0 ? String(value / 1000) : `${value}m`;
  if (value !== 0 && (name === 'memory' || name.endsWith('storage'))) {
    for (const [suffix, factor] of Object.entries(BINARY).reverse()) {
      const f = Number(factor);
      if (value % f === 0) return `${value / f}${suffix}`;
    }
  }
  return String(value);
}
