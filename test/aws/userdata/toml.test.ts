import { describe, expect, it } from 'vitest';
import { parseToml, TomlSyntaxError, type TomlTable } from '../../../shared/aws/userdata/toml-parse';
import { stringifyToml } from '../../../shared/aws/userdata/toml-stringify';

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
    ['a = 1\na = 2', 2, 'defined twice'],
    ['[t]\nx = 1\n[t]\ny = 2', 3, 'defined twice'],
    ['s = "open', 1, 'unterminated string'],
    ['d = 1979-05-27T07:32:00Z', 1, 'dates and times are not supported'],
    ['x = 1 y = 2', 1, 'expected the end of the line'],
    ['key value', 1, "expected '='"],
    ['arr = [1 2]', 1, "expected ',' or ']'"],
    ['n = 99999999999999999999', 1, 'integer out of range'],
    ['inline = { a = 1 }\n[inline]\nb = 2', 2, 'defined twice'],
  ])('rejects %j at line %i: %s', (text, line, reason) => {
    let error: unknown;
    try {
      parseToml(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TomlSyntaxError);
    expect((error as TomlSyntaxError).line).toBe(line);
    expect((error as TomlSyntaxError).message).toContain(reason);
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
        '"karpenter.sh/unregistered" = [":NoExecute"]',
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
