import { isValidationError, ValidationError } from '../../core/model/errors';
import { goDurationNanoseconds } from '../../core/model/go-duration';
import type { BootstrapOptions } from './bootstrap-options';

/**
 * A Go duration (`1m30s`, `90s`, `1.5h`) written as Go's `time.Duration.String` writes it
 * (`1m30s`, `1m30s`, `1h30m0s`). Karpenter parses the EC2NodeClass's durations into
 * metav1.Duration and writes them back with String(), so Bottlerocket settings must read the
 * same whatever spelling the user chose.
 *
 * @throws ValidationError naming `field` when `text` is not a Go duration
 */
export function goDurationString(text: string, field: string): string {
  return formatNanoseconds(parseGoDuration(text, field));
}

/** time.ParseDuration, in nanoseconds. */
function parseGoDuration(text: string, field: string): bigint {
  const nanoseconds = goDurationNanoseconds(text);
  if (nanoseconds === undefined) {
    throw new ValidationError([{ field, value: text, message: 'not a duration such as "1m30s"' }]);
  }
  return nanoseconds;
}

/** time.Duration.String. */
function formatNanoseconds(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const negative = nanoseconds < 0n;
  const u = negative ? -nanoseconds : nanoseconds;
  let text: string;
  if (u < 1_000_000_000n) {
    // Under a second: the largest unit below it, with a fraction.
    const [unit, digits] = u < 1_000n ? ['ns', 0] : u < 1_000_000n ? ['µs', 3] : ['ms', 6];
    text = `${withFraction(u, digits)}${unit}`;
  } else {
    const seconds = u / 1_000_000_000n;
    text = `${seconds % 60n}${fractionDigits(u % 1_000_000_000n, 9)}s`;
    const minutes = seconds / 60n;
    if (minutes > 0n) {
      text = `${minutes % 60n}m${text}`;
      const hours = minutes / 60n;
      if (hours > 0n) text = `${hours}h${text}`;
    }
  }
  return negative ? `-${text}` : text;
}

/** `value` divided by 10^digits, as Go prints it: trailing zeros of the fraction left out. */
function withFraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  return `${value / scale}${fractionDigits(value % scale, digits)}`;
}

function fractionDigits(remainder: bigint, digits: number): string {
  if (remainder === 0n) return '';
  return `.${remainder.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}

/**
 * spec.kubelet.evictionSoftGracePeriod as Karpenter writes it into every family's bootstrap: each
 * duration through Go's time.Duration.String (`90s` → `1m30s`), since Karpenter holds them as
 * metav1.Duration; undefined when unset.
 *
 * @throws ValidationError naming the EC2NodeClass and the signal's field when one is no Go duration
 */
export function evictionSoftGracePeriods(options: BootstrapOptions): Record<string, string> | undefined {
  const periods = options.kubelet.evictionSoftGracePeriod;
  if (periods === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [signal, period] of Object.entries(periods)) {
    try {
      out[signal] = goDurationString(period, `spec.kubelet.evictionSoftGracePeriod.${signal}`);
    } catch (e) {
      throw isValidationError(e) ? e.at({ object: `EC2NodeClass/${options.nodeClassName}` }) : e;
    }
  }
  return out;
}
