/**
 * The requirements algebra on label keys, with Karpenter's semantics
 * (kubernetes-sigs/karpenter pkg/scheduling/requirement(s).go): each key maps to a set of
 * allowed values that may be a complement ("anything but"), optionally bounded by integer
 * Gt/Lt limits, optionally demanding a minimum number of distinct values (minValues).
 */

/** Operators of a node selector requirement; Gte/Lte are Karpenter's additions. */
export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';

export const OPERATORS: readonly Operator[] = [
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
  'Gt',
  'Lt',
  'Gte',
  'Lte',
];

/** A core/v1 NodeSelectorRequirement, extended with Karpenter's minValues and Gte/Lte. */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values?: readonly string[];
  readonly minValues?: number;
}

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function parseInteger(value: string): number | undefined {
  if (!/^-?\d+$/.test(value)) return undefined;
  return Number(value);
}

/** The allowed values of one label key. Immutable. */
export class Requirement {
  private constructor(
    readonly key: string,
    /** true: every value except `values`; false: exactly `values`. */
    readonly complement: boolean,
    readonly values: ReadonlySet<string>,
    /** Exclusive integer lower bound. */
    readonly greaterThan?: number,
    /** Exclusive integer upper bound. */
    readonly lessThan?: number,
    readonly minValues?: number,
  ) {}

  /** Builds a requirement from an operator and its values; throws on malformed input. */
  static of(
    key: string,
    operator: Operator,
    values: readonly string[] = [],
    minValues?: number,
  ): Requirement {
    const bound = (): number => {
      const n = values.length === 1 ? parseInteger(values[0]) : undefined;
      if (n === undefined) {
        throw new RangeError(
          `requirement ${key} ${operator}: needs exactly one integer value, got ${JSON.stringify(values)}`,
        );
      }
      return n;
    };
    switch (operator) {
      case 'In':
        return new Requirement(key, false, new Set(values), undefined, undefined, minValues);
      case 'NotIn':
        return new Requirement(key, true, new Set(values), undefined, undefined, minValues);
      case 'Exists':
        return new Requirement(key, true, new Set(), undefined, undefined, minValues);
      case 'DoesNotExist':
        return new Requirement(key, false, new Set(), undefined, undefined, minValues);
      case 'Gt':
        return new Requirement(key, true, new Set(), bound(), undefined, minValues);
      case 'Gte':
        return new Requirement(key, true, new Set(), bound() - 1, undefined, minValues);
      case 'Lt':
        return new Requirement(key, true, new Set(), undefined, bound(), minValues);
      case 'Lte':
        return new Requirement(key, true, new Set(), undefined, bound() + 1, minValues);
    }
  }

  /** Whether `value` is allowed. */
  has(value: string): boolean {
    if (!this.withinBounds(value)) return false;
    return this.complement ? !this.values.has(value) : this.values.has(value);
  }

  private withinBounds(value: string): boolean {
    if (this.greaterThan === undefined && this.lessThan === undefined) return true;
    const n = parseInteger(value);
    if (n === undefined) return false;
    return (
      (this.greaterThan === undefined || n > this.greaterThan) &&
      (this.lessThan === undefined || n < this.lessThan)
    );
  }

  /** The values both requirements allow. minValues is the larger of the two. */
  intersection(other: Requirement): Requirement {
    const greaterThan = maxDefined(this.greaterThan, other.greaterThan);
    const lessThan = minDefined(this.lessThan, other.lessThan);
    const minValues = maxDefined(this.minValues, other.minValues);
    if (greaterThan !== undefined && lessThan !== undefined && greaterThan + 1 >= lessThan) {
      return new Requirement(this.key, false, new Set(), undefined, undefined, minValues);
    }
    let complement: boolean;
    let values: Set<string>;
    if (this.complement && other.complement) {
      complement = true;
      values = new Set([...this.values, ...other.values]);
    } else if (this.complement) {
      complement = false;
      values = new Set([...other.values].filter((v) => !this.values.has(v)));
    } else if (other.complement) {
      complement = false;
      values = new Set([...this.values].filter((v) => !other.values.has(v)));
    } else {
      complement = false;
      values = new Set([...this.values].filter((v) => other.values.has(v)));
    }
    if (!complement) {
      // A finite set is filtered by the bounds, which then carry no further information.
      const bounded = new Requirement(this.key, false, values, greaterThan, lessThan);
      values = new Set([...values].filter((v) => bounded.withinBounds(v)));
      return new Requirement(this.key, false, values, undefined, undefined, minValues);
    }
    return new Requirement(this.key, true, values, greaterThan, lessThan, minValues);
  }

  /** Number of allowed values; effectively infinite for complements. */
  get size(): number {
    return this.complement ? UNBOUNDED - this.values.size : this.values.size;
  }

  /** The operator this requirement would be written with. */
  get operator(): Operator {
    if (this.complement) {
      if (this.values.size > 0) return 'NotIn';
      if (this.greaterThan !== undefined) return 'Gt';
      if (this.lessThan !== undefined) return 'Lt';
      return 'Exists';
    }
    return this.values.size > 0 ? 'In' : 'DoesNotExist';
  }

  /** The single allowed value when there is exactly one. */
  get single(): string | undefined {
    if (this.complement || this.values.size !== 1) return undefined;
    return this.values.values().next().value;
  }

  /** Back to the API form (Gt, Lt and excluded values each become their own requirement). */
  toSelectorRequirements(): NodeSelectorRequirement[] {
    const mv = this.minValues !== undefined ? { minValues: this.minValues } : {};
    if (this.complement && (this.greaterThan !== undefined || this.lessThan !== undefined)) {
      // NotIn ∩ Gt/Lt keeps both the excluded values and the bounds; dropping either would
      // widen what the requirement admits.
      const out: NodeSelectorRequirement[] = [];
      if (this.values.size > 0) {
        out.push({ key: this.key, operator: 'NotIn', values: [...this.values].sort(), ...mv });
      }
      if (this.greaterThan !== undefined) {
        out.push({ key: this.key, operator: 'Gt', values: [String(this.greaterThan)], ...mv });
      }
      if (this.lessThan !== undefined) {
        out.push({ key: this.key, operator: 'Lt', values: [String(this.lessThan)], ...mv });
      }
      return out;
    }
    const values = [...this.values].sort();
    const op = this.operator;
    return [{ key: this.key, operator: op, ...(op === 'In' || op === 'NotIn' ? { values } : {}), ...mv }];
  }

  toString(): string {
    return this.toSelectorRequirements()
      .map((r) => `${r.key} ${r.operator}${r.values ? ` [${r.values.join(',')}]` : ''}`)
      .join(', ');
  }
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

const NEGATIVE_OPERATORS = new Set<Operator>(['NotIn', 'DoesNotExist']);

/** A set of requirements keyed by label key. Immutable: every operation returns a new value. */
export class Requirements {
  private constructor(private readonly byKey: ReadonlyMap<string, Requirement>) {}

  static readonly EMPTY = new Requirements(new Map());

  /** From API requirements; repeated keys are intersected. */
  static from(requirements: readonly NodeSelectorRequirement[]): Requirements {
    return Requirements.EMPTY.with(
      ...requirements.map((r) => Requirement.of(r.key, r.operator, r.values, r.minValues)),
    );
  }

  /** One `In [value]` requirement per label. */
  static fromLabels(labels: Readonly<Record<string, string>>): Requirements {
    return Requirements.EMPTY.with(...Object.entries(labels).map(([k, v]) => Requirement.of(k, 'In', [v])));
  }

  /** Adds requirements, intersecting with any already present for the same key. */
  with(...requirements: readonly Requirement[]): Requirements {
    if (requirements.length === 0) return this;
    const next = new Map(this.byKey);
    for (const r of requirements) {
      const existing = next.get(r.key);
      next.set(r.key, existing ? existing.intersection(r) : r);
    }
    return new Requirements(next);
  }

  /** The intersection of both sets of requirements. */
  intersect(other: Requirements): Requirements {
    return this.with(...other.byKey.values());
  }

  /** The requirement on `key`; undefined when the key is unconstrained. */
  get(key: string): Requirement | undefined {
    return this.byKey.get(key);
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  values(): IterableIterator<Requirement> {
    return this.byKey.values();
  }

  get size(): number {
    return this.byKey.size;
  }

  /**
   * Why `incoming` (e.g. a pod's requirements) cannot be met by these (e.g. a node's), or
   * undefined when they are compatible. A key the incoming side requires positively must be
   * defined here unless it is in `allowUndefined` (the well-known labels); keys defined on
   * both sides must intersect.
   */
  compatible(incoming: Requirements, allowUndefined: ReadonlySet<string>): string | undefined {
    for (const [key, req] of incoming.byKey) {
      if (this.byKey.has(key) || allowUndefined.has(key) || NEGATIVE_OPERATORS.has(req.operator)) continue;
      return `label ${key} does not have known values`;
    }
    return this.intersects(incoming);
  }

  /** Why keys defined on both sides do not intersect, or undefined when they all do. */
  intersects(incoming: Requirements): string | undefined {
    for (const [key, req] of incoming.byKey) {
      const existing = this.byKey.get(key);
      if (!existing) continue;
      if (existing.intersection(req).size > 0) continue;
      if (NEGATIVE_OPERATORS.has(req.operator) && NEGATIVE_OPERATORS.has(existing.operator)) continue;
      return `incompatible requirement ${req} (allowed: ${existing})`;
    }
    return undefined;
  }

  /**
   * Whether every value these requirements allow is allowed by `other` on each of other's keys
   * (so intersecting with `other` would change nothing). Only finite sets can imply.
   */
  implies(other: Requirements): boolean {
    for (const [key, req] of other.byKey) {
      const mine = this.byKey.get(key);
      if (!mine || mine.complement) return false;
      for (const v of mine.values) if (!req.has(v)) return false;
      if (req.minValues !== undefined && (mine.minValues ?? 0) < req.minValues) return false;
    }
    return true;
  }

  /** Labels implied by the requirements: every key with exactly one allowed value. */
  labels(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, req] of this.byKey) {
      const v = req.single;
      if (v !== undefined) out[key] = v;
    }
    return out;
  }

  /** Whether a node with these labels satisfies every requirement. */
  matchesLabels(labels: Readonly<Record<string, string>>): boolean {
    for (const [key, req] of this.byKey) {
      const has = Object.hasOwn(labels, key);
      if (!has) {
        if (req.operator === 'DoesNotExist' || req.operator === 'NotIn') continue;
        return false;
      }
      if (!req.has(labels[key])) return false;
    }
    return true;
  }

  toSelectorRequirements(): NodeSelectorRequirement[] {
    return [...this.byKey.values()].flatMap((r) => r.toSelectorRequirements());
  }

  toString(): string {
    return [...this.byKey.values()].map(String).join('; ');
  }
}
