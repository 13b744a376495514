import { isTomlTable, type TomlTable, type TomlValue } from './toml-parse';

/**
 * Writes a table as a TOML document: each table's plain values under its `[dotted.header]`,
 * then its sub-tables, arrays of tables as `[[header]]`, everything else inline. Keys keep
 * their insertion order, so the same data always gives the same text.
 */
export function stringifyToml(root: TomlTable): string {
  const sections: string[] = [];
  writeTable(root, [], sections, false);
  return `${sections.filter((s) => s !== '').join('\n\n')}\n`;
}

function isTableArray(value: TomlValue): value is TomlTable[] {
  return Array.isArray(value) && value.length > 0 && value.every(isTomlTable);
}

function writeTable(table: TomlTable, path: readonly string[], sections: string[], arrayItem: boolean): void {
  const entries = Object.entries(table);
  const plain = entries.filter(([, v]) => !isTomlTable(v) && !isTableArray(v));
  const nested = entries.filter(([, v]) => isTomlTable(v) || isTableArray(v));
  const header = path.map(formatKey).join('.');
  const lines = plain.map(([k, v]) => `${formatKey(k)} = ${formatValue(v)}`);
  if (arrayItem) sections.push([`[[${header}]]`, ...lines].join('\n'));
  else if (path.length > 0 && (lines.length > 0 || nested.length === 0)) {
    sections.push([`[${header}]`, ...lines].join('\n'));
  } else sections.push(lines.join('\n'));
  for (const [key, value] of nested) {
    if (isTomlTable(value)) writeTable(value, [...path, key], sections, false);
    else for (const item of value as TomlTable[]) writeTable(item, [...path, key], sections, true);
  }
}

function formatKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : formatString(key);
}

function formatValue(value: TomlValue): string {
  if (typeof value === 'string') return formatString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return formatNumber(value);
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  const pairs = Object.entries(value).map(([k, v]) => `${formatKey(k)} = ${formatValue(v)}`);
  return pairs.length === 0 ? '{}' : `{ ${pairs.join(', ')} }`;
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Number.isSafeInteger(value)) return String(value);
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** A TOML basic string; JSON's escapes are all valid TOML escapes. */
function formatString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, '\\u007f');
}
