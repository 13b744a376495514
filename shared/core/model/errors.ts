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
    .join(', ');
  const lines = issues.map((i) => `${i.field}: ${i.message} (got ${renderValue(i.value)})`);
  return `${where ? `${where}: ` : ''}${lines.join('; ')}`;
}

function renderValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const s = JSON.stringify(value);
  return s === undefined ? String(value) : s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

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
            `${issue.field} ${issue.message}${issue.value === undefined ? '' : ` (got ${JSON.stringify(issue.value)})`}`,
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
