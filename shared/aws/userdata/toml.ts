import { parse, stringify, TomlDate, TomlError, type TomlTable, type TomlValue } from 'smol-toml';
import { PodliftError } from '../../core/model/errors';

/**
 * TOML for Bottlerocket user data, read and written by smol-toml (TOML 1.0). Integers and
 * floats both become numbers, so `1.0` is written back as `1`; dates and times are kept as
 * smol-toml's `TomlDate` and written back as they were.
 */

export type { TomlTable, TomlValue };

/** Text that is not valid TOML; `line` and `column` are 1-based. */
export class TomlSyntaxError extends PodliftError {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = 'TomlSyntaxError';
  }
}

/** Whether a value is a table (not an array, not a date). */
export function isTomlTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof TomlDate);
}

/**
 * Parses a TOML document.
 * @throws TomlSyntaxError naming the line and column of the first problem, and what it is
 *   (smol-toml's first message line, without the excerpt of the document it appends).
 */
export function parseToml(text: string): TomlTable {
  try {
    return parse(text);
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    const reason = e.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
    throw new TomlSyntaxError(e.line, e.column, reason);
  }
}

/**
 * Writes a table as a TOML document: each table's plain values under its `[dotted.header]`, then
 * its sub-tables, arrays of tables as `[[header]]`. Keys keep their insertion order, so the same
 * data always gives the same text.
 */
export function stringifyToml(root: TomlTable): string {
  return `${stringify(root).trim()}\n`;
}
