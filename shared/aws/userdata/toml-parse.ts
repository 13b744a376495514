import { PodliftError } from '../../core/model/errors';

/**
 * A TOML 1.0 reader for Bottlerocket user data: tables, arrays of tables, dotted and quoted
 * keys, all four string forms, integers (decimal, hex, octal, binary), floats, booleans,
 * arrays and inline tables. Dates and times are rejected (Bottlerocket settings have none).
 * Integers and floats both become numbers, so `1.0` is written back as `1`.
 */

/** A TOML value as JavaScript data. */
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

/** A TOML table: key → value. */
export interface TomlTable {
  [key: string]: TomlValue;
}

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

/** Whether a value is a table (and not an array). */
export function isTomlTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a TOML document.
 * @throws TomlSyntaxError naming the line and column of the first problem.
 */
export function parseToml(text: string): TomlTable {
  return new TomlReader(text.replace(/\r\n/g, '\n')).document();
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

class TomlReader {
  private pos = 0;
  /** Tables opened by a [header] or made by a key/value: they may not be opened again. */
  private readonly defined = new Set<TomlTable>();
  /** Inline tables and static arrays: closed to later headers and dotted keys. */
  private readonly sealed = new Set<object>();
  /** Arrays made by [[headers]]. */
  private readonly tableArrays = new Set<TomlValue[]>();

  constructor(private readonly text: string) {}

  document(): TomlTable {
    const root: TomlTable = {};
    let current = root;
    for (;;) {
      this.skipBlankLinesAndComments();
      if (this.pos >= this.text.length) return root;
      if (this.peek() === '[') current = this.header(root);
      else this.keyValue(current);
      this.endOfLine();
    }
  }

  private header(root: TomlTable): TomlTable {
    const isArray = this.text.startsWith('[[', this.pos);
    this.pos += isArray ? 2 : 1;
    this.skipSpaces();
    const path = this.key();
    this.skipSpaces();
    this.expect(isArray ? ']]' : ']');
    const parent = this.descend(root, path.slice(0, -1), true);
    const last = path[path.length - 1];
    if (isArray) {
      let array = parent[last];
      if (array === undefined) {
        array = [];
        parent[last] = array;
        this.tableArrays.add(array);
      }
      if (!Array.isArray(array) || !this.tableArrays.has(array)) {
        this.fail(`${path.join('.')} is already defined and is not an array of tables`);
      }
      const table: TomlTable = {};
      array.push(table);
      return table;
    }
    const existing = parent[last];
    if (existing === undefined) {
      const table: TomlTable = {};
      parent[last] = table;
      this.defined.add(table);
      return table;
    }
    if (!isTomlTable(existing) || this.defined.has(existing) || this.sealed.has(existing)) {
      this.fail(`table ${path.join('.')} is defined twice`);
    }
    this.defined.add(existing);
    return existing;
  }

  /** Walks (creating) the tables of a dotted path; the last element of an array of tables is entered. */
  private descend(from: TomlTable, path: readonly string[], viaHeader: boolean): TomlTable {
    let table = from;
    for (const key of path) {
      let next = table[key];
      if (next === undefined) {
        next = {};
        table[key] = next;
        if (!viaHeader) this.defined.add(next);
      }
      if (Array.isArray(next) && this.tableArrays.has(next) && viaHeader) {
        next = next[next.length - 1];
      }
      if (!isTomlTable(next) || this.sealed.has(next)) this.fail(`${key} is not a table`);
      table = next;
    }
    return table;
  }

  private keyValue(table: TomlTable): void {
    const path = this.key();
    this.skipSpaces();
    this.expect('=');
    this.skipSpaces();
    const value = this.value();
    const parent = this.descend(table, path.slice(0, -1), false);
    const last = path[path.length - 1];
    if (Object.hasOwn(parent, last)) this.fail(`key ${path.join('.')} is defined twice`);
    parent[last] = value;
  }

  private key(): string[] {
    const parts = [this.simpleKey()];
    for (;;) {
      this.skipSpaces();
      if (this.peek() !== '.') return parts;
      this.pos++;
      this.skipSpaces();
      parts.push(this.simpleKey());
    }
  }

  private simpleKey(): string {
    const c = this.peek();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    const start = this.pos;
    while (this.pos < this.text.length && BARE_KEY.test(this.text[this.pos])) this.pos++;
    if (this.pos === start) this.fail('expected a key');
    return this.text.slice(start, this.pos);
  }

  private value(): TomlValue {
    const c = this.peek();
    if (this.text.startsWith('"""', this.pos)) return this.multilineString('"');
    if (this.text.startsWith("'''", this.pos)) return this.multilineString("'");
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    if (this.text.startsWith('true', this.pos) && !BARE_KEY.test(this.text[this.pos + 4] ?? '')) {
      this.pos += 4;
      return true;
    }
    if (this.text.startsWith('false', this.pos) && !BARE_KEY.test(this.text[this.pos + 5] ?? '')) {
      this.pos += 5;
      return false;
    }
    return this.number();
  }

  private number(): number {
    const start = this.pos;
    while (this.pos < this.text.length && /[0-9A-Za-z_+\-.:]/.test(this.text[this.pos])) this.pos++;
    const token = this.text.slice(start, this.pos);
    if (token === '') this.fail('expected a value');
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(token)) {
      this.failAt(start, `dates and times are not supported (got ${token})`);
    }
    const special = /^([+-])?(inf|nan)$/.exec(token);
    if (special) return special[2] === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity;
    const radix = /^0([xob])([0-9A-Fa-f](?:_?[0-9A-Fa-f])*)$/.exec(token);
    if (radix) {
      const base = { x: 16, o: 8, b: 2 }[radix[1] as 'x' | 'o' | 'b'];
      const digits = radix[2].replaceAll('_', '');
      const value = Number.parseInt(digits, base);
      if (Number.isNaN(value) || value.toString(base) !== digits.toLowerCase().replace(/^0+(?=.)/, '')) {
        this.failAt(start, `not a number: ${token}`);
      }
      return this.safe(value, start, token);
    }
    if (/^[+-]?(0|[1-9](_?\d)*)$/.test(token))
      return this.safe(Number(token.replaceAll('_', '')), start, token);
    if (/^[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$/.test(token)) {
      return Number(token.replaceAll('_', ''));
    }
    return this.failAt(start, `not a value: ${token}`);
  }

  private safe(value: number, start: number, token: string): number {
    if (!Number.isSafeInteger(value)) this.failAt(start, `integer out of range: ${token}`);
    return value;
  }

  private basicString(): string {
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined || c === '\n') this.fail('unterminated string');
      this.pos++;
      if (c === '"') return out;
      out += c === '\\' ? this.escape() : c;
    }
  }

  private escape(): string {
    const c = this.text[this.pos++];
    if (c !== undefined && Object.hasOwn(ESCAPES, c)) return ESCAPES[c];
    if (c === 'u' || c === 'U') {
      const length = c === 'u' ? 4 : 8;
      const hex = this.text.slice(this.pos, this.pos + length);
      if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex)) this.fail(`bad unicode escape \\${c}${hex}`);
      this.pos += length;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`bad unicode escape \\${c}${hex}`);
      return String.fromCodePoint(code);
    }
    return this.failAt(this.pos - 2, `unknown escape \\${c ?? ''}`);
  }

  private literalString(): string {
    const end = this.text.indexOf("'", this.pos + 1);
    const newline = this.text.indexOf('\n', this.pos + 1);
    if (end < 0 || (newline >= 0 && newline < end)) this.fail('unterminated string');
    const value = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return value;
  }

  private multilineString(quote: '"' | "'"): string {
    const delimiter = quote.repeat(3);
    this.pos += 3;
    if (this.peek() === '\n') this.pos++;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated multi-line string');
      if (this.text.startsWith(delimiter, this.pos)) {
        let run = 3;
        while (run < 5 && this.text[this.pos + run] === quote) run++;
        this.pos += run;
        return out + quote.repeat(run - 3);
      }
      const c = this.text[this.pos++];
      if (quote === "'" || c !== '\\') {
        out += c;
        continue;
      }
      const trimmed = /^[ \t]*\n[\s]*/.exec(this.text.slice(this.pos));
      if (trimmed) this.pos += trimmed[0].length;
      else out += this.escape();
    }
  }

  private array(): TomlValue[] {
    this.pos++;
    const out: TomlValue[] = [];
    for (;;) {
      this.skipBlankLinesAndComments();
      if (this.peek() === ']') break;
      out.push(this.value());
      this.skipBlankLinesAndComments();
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      if (this.peek() !== ']') this.fail("expected ',' or ']' in array");
      break;
    }
    this.pos++;
    this.sealed.add(out);
    return out;
  }

  private inlineTable(): TomlTable {
    this.pos++;
    const table: TomlTable = {};
    this.skipSpaces();
    if (this.peek() === '}') {
      this.pos++;
      this.sealed.add(table);
      return table;
    }
    for (;;) {
      this.skipSpaces();
      this.keyValue(table);
      this.skipSpaces();
      const c = this.text[this.pos++];
      if (c === '}') break;
      if (c !== ',') this.failAt(this.pos - 1, "expected ',' or '}' in inline table");
    }
    this.sealed.add(table);
    return table;
  }

  private endOfLine(): void {
    this.skipSpaces();
    if (this.peek() === '#') this.skipComment();
    if (this.pos < this.text.length && this.peek() !== '\n') this.fail('expected the end of the line');
  }

  private skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  private skipComment(): void {
    while (this.pos < this.text.length && this.peek() !== '\n') this.pos++;
  }

  private skipBlankLinesAndComments(): void {
    for (;;) {
      this.skipSpaces();
      if (this.peek() === '#') this.skipComment();
      if (this.peek() !== '\n') return;
      this.pos++;
    }
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private expect(token: string): void {
    if (!this.text.startsWith(token, this.pos)) this.fail(`expected '${token}'`);
    this.pos += token.length;
  }

  private fail(reason: string): never {
    return this.failAt(this.pos, reason);
  }

  private failAt(pos: number, reason: string): never {
    const before = this.text.slice(0, pos);
    const line = before.split('\n').length;
    const column = pos - before.lastIndexOf('\n');
    throw new TomlSyntaxError(line, column, reason);
  }
}
