/**
 * A string equal for two values exactly when they are structurally identical plain data, or
 * undefined for anything else (non-finite numbers, -0, undefined, class instances such as Date),
 * which JSON.stringify would silently fold into another value.
 */
export function contentKey(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0) ? String(v) : undefined;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return undefined;
          const item = contentKey(v[i]);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return undefined;
      let out = '{';
      let first = true;
      for (const k of Object.keys(v)) {
        const item = contentKey((v as Record<string, unknown>)[k]);
        if (item === undefined) return undefined;
        out += `${first ? '' : ','}${JSON.stringify(k)}:${item}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}
