/** Nanoseconds per Go duration unit (time.ParseDuration's unitMap). */
const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const COMPONENT = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Go's time.ParseDuration, in nanoseconds: an optional sign, then one or more decimal numbers
 * each with a unit ("300ms", "-1.5h", "2h45m"), or a bare "0". What Karpenter's kubelet
 * validation (kubeletconfiguration_validation.go validateEvictionGracePeriod) and metav1.Duration
 * accept, so an EC2NodeClass is refused here exactly when Karpenter refuses it.
 *
 * @returns undefined when `text` is not a Go duration
 */
export function goDurationNanoseconds(text: string): bigint | undefined {
  let rest = text;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const match = COMPONENT.exec(rest);
    const [whole = '', integer = '', fraction = '', unit = ''] = match ?? [];
    if (match === null || (integer === '' && fraction === '')) return undefined;
    const perUnit = UNITS[unit] ?? 1n;
    total += BigInt(integer || '0') * perUnit;
    if (fraction !== '') total += (BigInt(fraction) * perUnit) / 10n ** BigInt(fraction.length);
    rest = rest.slice(whole.length);
  }
  return sign * total;
}
