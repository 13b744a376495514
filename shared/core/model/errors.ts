/**
 * podlift's typed error family: one base class, subclasses set `name`, keep `cause`, and carry
 * the context a caller or operator needs. Messages say what was being done and with which value.
 */
export class PodliftError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PodliftError';
  }
}

/** Where a bad value was found: file, document, object, field. All optional; filled in as the error travels up. */
export interface ValidationLocation {
  /** File path or SSM parameter name. */
  readonly source?: string;
  /** 0-based index of the document in a multi-document YAML stream. */
  readonly documentIndex?: number;
  /** `Kind/name` of the object. */
  readonly object?: string;
}

/** One bad field: its dotted path, the offending value and what was wrong. */
export interface ValidationIssue {
  readonly field: string;
  readonly value: unknown;
  readonly message: string;
}

/** Input that does not describe a valid object. The CLI exits 2 on it. */
export class ValidationError extends PodliftError {
  constructor(
    readonly issues: readonly ValidationIssue[],
    readonly location: ValidationLocation = {},
    options?: { cause?: unknown },
  ) {
    super(formatValidation(issues, location), options);
    this.name = 'ValidationError';
  }

  /** The same issues, located more precisely (outer callers add file and document index). */
  at(location: ValidationLocation): ValidationError {
    return new ValidationError(this.issues, { ...this.location, ...location }, { cause: this.cause });
  }
}

function formatValidation(issues: readonly ValidationIssue[], loc: ValidationLocation): string {
  const where = [
    loc.source,
    loc.documentIndex !== undefined ? `document ${loc.documentIndex}` : undefined,
    loc.object,
  ]
    .filter((x) => x !== undefined)
    .map((part) => excerpt(part, MAX_LOCATION_PART))
    .join(', ');
  const shown = issues.slice(0, MAX_ISSUES_SHOWN);
  const lines = shown.map(
    (i) =>
      `${excerpt(i.field, MAX_LOCATION_PART)}: ${excerpt(i.message, MAX_MESSAGE)} (got ${renderValue(i.value)})`,
  );
  if (issues.length > shown.length) lines.push(`and ${issues.length - shown.length} more`);
  return `${where ? `${where}: ` : ''}${lines.join('; ')}`;
}

/** The characters of a rendered value an error message shows; longer ones end in `...`. */
const MAX_RENDERED = 120;
/** A file name, object or field in a message (an object's name is at most 253 characters). */
const MAX_LOCATION_PART = 300;
/** One issue's message (an unknown field's message names the field, which may be long). */
const MAX_MESSAGE = 500;
/** Issues one message lists before it sums up the rest. */
const MAX_ISSUES_SHOWN = 20;

const excerpt = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 3)}...` : text);

/**
 * A value as JSON for an error message, at most {@link MAX_RENDERED} characters. Only that
 * much is ever built: a whole value, serialised and then cut, is what a hostile document turns
 * into gigabytes (an alias bomb's shared subtrees are expanded by JSON.stringify) or an
 * exception of its own (a cycle, a nesting deeper than the stack); neither can happen here.
 * Values short enough read exactly as JSON.stringify writes them.
 */
export function renderValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const out = { text: '', room: MAX_RENDERED + 1 };
  writeJson(value, out);
  return excerpt(out.text, MAX_RENDERED);
}

/** Appends `value` as JSON to `out` until `out.room` characters are used; each level costs a character, so depth is bounded too. */
function writeJson(value: unknown, out: { text: string; room: number }): void {
  const put = (s: string) => {
    const cut = s.length > out.room ? s.slice(0, out.room) : s;
    out.text += cut;
    out.room -= cut.length;
  };
  if (out.room <= 0) return;
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string') put(JSON.stringify(value.slice(0, out.room)));
    else if (typeof value === 'bigint') put(String(value));
    else put((JSON.stringify(value) as string | undefined) ?? String(value));
    return;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    writeJson(toJSON.call(value), out);
    return;
  }
  if (Array.isArray(value)) {
    put('[');
    for (let i = 0; i < value.length && out.room > 0; i++) {
      if (i > 0) put(',');
      const item: unknown = value[i];
      // JSON.stringify writes what it cannot write as null inside an array.
      if (unwritable(item)) put('null');
      else writeJson(item, out);
    }
    put(']');
    return;
  }
  put('{');
  let first = true;
  for (const key in value) {
    if (out.room <= 0) break;
    if (!Object.hasOwn(value, key)) continue;
    const item: unknown = (value as Record<string, unknown>)[key];
    // JSON.stringify leaves out the members it cannot write.
    if (unwritable(item)) continue;
    put(`${first ? '' : ','}${JSON.stringify(key.slice(0, out.room))}:`);
    first = false;
    writeJson(item, out);
  }
  put('}');
}

/** What JSON has no value for: undefined, functions, symbols. */
const unwritable = (value: unknown) =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

export function isValidationError(e: unknown): e is ValidationError {
  return e instanceof ValidationError;
}

/** A thing that was looked up does not exist. */
export class NotFoundError extends PodliftError {
  constructor(
    readonly resource: string,
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(message ?? `${resource} not found`, options);
    this.name = 'NotFoundError';
  }
}

export function isNotFoundError(e: unknown): e is NotFoundError {
  return e instanceof NotFoundError;
}

/** One offering EC2 refused, and why. */
export interface RefusedOffering {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: 'spot' | 'on-demand' | 'reserved';
  /** EC2's error code, e.g. InsufficientInstanceCapacity. */
  readonly code: string;
  readonly message?: string;
}

/**
 * No offering of a NodeClaim could be launched: every override was refused for lack of
 * capacity (or a limit). Callers mark the offerings unavailable and plan again.
 */
export class InsufficientCapacityError extends PodliftError {
  constructor(
    readonly nodeClaim: string,
    readonly refused: readonly RefusedOffering[],
    options?: { cause?: unknown },
  ) {
    super(
      `launching NodeClaim ${nodeClaim}: insufficient capacity for every offering (${refused
        .slice(0, 5)
        .map((r) => `${r.instanceType} ${r.capacityType} ${r.zone}: ${r.code}`)
        .join('; ')}${refused.length > 5 ? `; and ${refused.length - 5} more` : ''})`,
      options,
    );
    this.name = 'InsufficientCapacityError';
  }
}

export function isInsufficientCapacityError(e: unknown): e is InsufficientCapacityError {
  return e instanceof InsufficientCapacityError;
}

/** A call to a cloud or cluster API failed in a way that is not the caller's input. */
export class CloudError extends PodliftError {
  constructor(
    message: string,
    /** The provider's error code (EC2 `InvalidSubnetID.NotFound`, HTTP status, ...). */
    readonly code: string | undefined,
    /** Whether trying again later may succeed (throttling, 5xx). */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CloudError';
  }
}

export function isCloudError(e: unknown): e is CloudError {
  return e instanceof CloudError;
}

/** A process's environment is incomplete or invalid (the watcher exits 2; a function fails to start). */
export class ConfigurationError extends PodliftError {
  constructor(
    readonly issues: readonly ValidationIssue[],
    /** Whose configuration, e.g. `watcher`, `provisioner function`. */
    readonly subject = 'watcher',
  ) {
    super(
      `invalid ${subject} configuration: ${issues
        .map(
          (issue) =>
            `${issue.field} ${issue.message}${issue.value === undefined ? '' : ` (got ${renderValue(issue.value)})`}`,
        )
        .join('; ')}`,
    );
    this.name = 'ConfigurationError';
  }
}

/** Whether `error` is a {@link ConfigurationError}. */
export function isConfigurationError(error: unknown): error is ConfigurationError {
  return error instanceof ConfigurationError;
}
