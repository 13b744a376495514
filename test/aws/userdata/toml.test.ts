import { describe, expect, it } from 'vitest';
import {
  isTomlTable,
  parseToml,
  stringifyToml,
  TomlSyntaxError,
  type TomlTable,
} from '../../../shared/aws/userdata/toml';

/** Karpenter's Bottlerocket test input (testdata/br_userdata_input.golden), with its Go %s filled in. */
const BOTTLEROCKET_INPUT = `[settings.kubernetes]
"unknown-setting" = "unknown"
api-server = 'replaceme'
cloud-provider = 'external'
cluster-certificate = "replaceme"
cluster-name = 'replaceme'
max-pods = 9999999999 # replaceme

[settings.kubernetes.eviction-hard]
"memory.available" = "12%"

[settings.kubernetes.node-labels]
"custom-node-label" = "custom"
"karpenter.sh/nodepool" = "should-be-overridden"

[settings.kubernetes.node-taints]
"replace" = ["me:Schedule"]

[settings.network]
hostname = "test.local"
https-proxy = "1.2.3.4:8080"
no-proxy = ["localhost", "127.0.0.1"]
hosts = [["10.0.0.0", ["test.example.com", "test1.example.com"]]]

[settings.ntp]
time-servers = ["169.254.169.123"]
`;

describe('parseToml', () => {
  it("reads Karpenter's Bottlerocket input: nested tables, quoted keys, both string forms, arrays, comments", () => {
    const doc = parseToml(BOTTLEROCKET_INPUT);
    expect(doc).toEqual({
      settings: {
        kubernetes: {
          'unknown-setting': 'unknown',
          'api-server': 'replaceme',
          'cloud-provider': 'external',
          'cluster-certificate': 'replaceme',
          'cluster-name': 'replaceme',
          'max-pods': 9999999999,
          'eviction-hard': { 'memory.available': '12%' },
          'node-labels': { 'custom-node-label': 'custom', 'karpenter.sh/nodepool': 'should-be-overridden' },
          'node-taints': { replace: ['me:Schedule'] },
        },
        network: {
          hostname: 'test.local',
          'https-proxy': '1.2.3.4:8080',
          'no-proxy': ['localhost', '127.0.0.1'],
          hosts: [['10.0.0.0', ['test.example.com', 'test1.example.com']]],
        },
        ntp: { 'time-servers': ['169.254.169.123'] },
      },
    });
  });

  it('reads dotted keys, inline tables, arrays of tables, escapes, multi-line strings and numbers', () => {
    const doc = parseToml(`
a.b.c = 1
inline = { x = true, "y z" = -0.5, nested.k = 'v' }
esc = "tab\\tquote\\"uni\\u00e9"
lit = 'C:\\path'
ml = """
first \\
   second"""
raw = '''
keep \\n as is'''
nums = [0x1F, 0o17, 0b101, 1_000, 6.02e23, -inf, +12]
multi = [
  1, # comment
  2,
]
[[settings.bootstrap]]
name = "one"
[[settings.bootstrap]]
name = "two"
[settings.bootstrap.opts]
fast = false
`);
    expect(doc).toEqual({
      a: { b: { c: 1 } },
      inline: { x: true, 'y z': -0.5, nested: { k: 'v' } },
      esc: 'tab\tquote"uni\u00e9',
      lit: 'C:\\path',
      ml: 'first second',
      raw: 'keep \\n as is',
      nums: [31, 15, 5, 1000, 6.02e23, -Infinity, 12],
      multi: [1, 2],
      settings: { bootstrap: [{ name: 'one' }, { name: 'two', opts: { fast: false } }] },
    });
  });

  it.each([
    ['a = 1\na = 2', 2, 1, 'trying to redefine an already defined table or value'],
    ['[t]\nx = 1\n[t]\ny = 2', 3, 2, 'trying to redefine an already defined table or value'],
    ['s = "open', 1, 5, 'unfinished string'],
    ['x = 1 y = 2', 1, 7, 'each key-value declaration must be followed by an end-of-line'],
    ['arr = [1 2]', 1, 10, 'expected comma or end of structure'],
    ['n = 99999999999999999999', 1, 5, 'integer value cannot be represented losslessly'],
    ['inline = { a = 1 }\n[inline]\nb = 2', 2, 2, 'trying to redefine an already defined table or value'],
  ])('rejects %j at line %i, column %i: %s', (text, line, column, reason) => {
    let error: unknown;
    try {
      parseToml(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TomlSyntaxError);
    expect(error).toMatchObject({ line, column, reason });
    // The message names the place and the reason, without smol-toml's excerpt of the document.
    expect((error as TomlSyntaxError).message).toBe(`line ${line}, column ${column}: ${reason}`);
  });

  it('keeps dates as dates, which are not tables, and writes them back', () => {
    const doc = parseToml('d = 1979-05-27T07:32:00Z');
    expect(isTomlTable(doc)).toBe(true);
    expect(isTomlTable(doc.d)).toBe(false);
    expect(isTomlTable([])).toBe(false);
    expect(stringifyToml(doc)).toBe('d = 1979-05-27T07:32:00.000Z\n');
  });
});

describe('stringifyToml', () => {
  it('writes each table under its header, quoting keys that are not bare', () => {
    const text = stringifyToml({
      settings: {
        kubernetes: {
          'cluster-name': 'demo',
          'max-pods': 29,
          'node-labels': { 'karpenter.sh/nodepool': 'default' },
          'node-taints': { 'karpenter.sh/unregistered': [':NoExecute'] },
        },
      },
    });
    expect(text).toBe(
      [
        '[settings.kubernetes]',
        'cluster-name = "demo"',
        'max-pods = 29',
        '',
        '[settings.kubernetes.node-labels]',
        '"karpenter.sh/nodepool" = "default"',
        '',
        '[settings.kubernetes.node-taints]',
        '"karpenter.sh/unregistered" = [ ":NoExecute" ]',
        '',
      ].join('\n'),
    );
  });

  it('round-trips what it parses, including arrays of tables, escapes, floats and empty tables', () => {
    const doc = parseToml(BOTTLEROCKET_INPUT);
    expect(parseToml(stringifyToml(doc))).toEqual(doc);
    const tricky: TomlTable = {
      s: 'line\nbreak "quoted" \\ \u0001 \u007f',
      f: 0.25,
      big: 1e300,
      empty: {},
      inlineInArray: [{ a: 1 }, 2],
      list: [{ name: 'one', sub: { x: 1 } }, { name: 'two' }],
    };
    expect(parseToml(stringifyToml(tricky))).toEqual(tricky);
  });
});
