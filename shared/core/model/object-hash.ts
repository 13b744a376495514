/**
 * A stable, pure hash of plain data, for the drift annotations (`karpenter.sh/nodepool-hash`,
 * `karpenter.k8s.aws/ec2nodeclass-hash`). Karpenter hashes Go structs with hashstructure
 * (FormatV2, SlicesAsSets, IgnoreZeroValue, ZeroNil); podlift cannot reproduce those numbers
 * bit for bit, so its values differ from Karpenter's (the `-version` annotation says whose
 * scheme it is) but follow the same rules: key order does not matter, lists are sets, and zero
 * values (undefined, null, '', 0, false, empty lists and objects) hash as absent, so adding a
 * defaulted field to the model does not drift every node.
 */

/** Hash of `value`: FNV-1a 64-bit over its canonical JSON, as a decimal string (as Karpenter's). */
export function objectHash(value: unknown): string {
  return fnv1a64(canonical(value) ?? '').toString();
}

/** Canonical JSON: keys sorted, lists sorted as sets, zero values dropped; undefined when zero. */
export function canonical(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '' || value === 0 || value === false)
    return undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonical).filter((item): item is string => item !== undefined);
    return items.length === 0 ? undefined : `[${[...new Set(items)].sort().join(',')}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .flatMap((key) => {
        const item = canonical((value as Record<string, unknown>)[key]);
        return item === undefined ? [] : [`${JSON.stringify(key)}:${item}`];
      });
    return entries.length === 0 ? undefined : `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** FNV-1a, 64 bits, over the UTF-16 code units of `text` (each as two bytes). */
function fnv1a64(text: string): bigint {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    hash = ((hash ^ BigInt(unit & 0xff)) * FNV_PRIME) & MASK;
    hash = ((hash ^ BigInt(unit >> 8)) * FNV_PRIME) & MASK;
  }
  return hash;
}
