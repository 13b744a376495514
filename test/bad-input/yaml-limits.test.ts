import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { valueShapeIssue } from '../../shared/core/manifests/value-shape';
import { renderValue, ValidationError } from '../../shared/core/model/errors';
import {
  KUBERNETES_YAML_LIMITS,
  loadKubernetesYaml,
  loadKubernetesYamlDocument,
} from '../../shared/yaml/kubernetes-yaml';
import {
  aliasBomb,
  deepBlock,
  deepFlow,
  deepValue,
  mergeKeyBomb,
  nodePoolYaml,
  selfReference,
} from './hostile-documents';

/** The ValidationError `read` throws. */
function refusal(read: () => unknown): ValidationError {
  try {
    read();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError, the document was read');
}

const one = (text: string) => () => loadKubernetesYamlDocument(text, 'hostile.yaml');

describe('loadKubernetesYaml: hostile documents are refused, by name, before anything walks them', () => {
  it.each([
    { what: 'an alias bomb (10^9 scalars in 0.4 KB)', text: aliasBomb(), says: 'cannot be read as YAML' },
    {
      what: 'an alias bomb under a manifest',
      text: `${nodePoolYaml('bomb')}\n${aliasBomb(9, 10, '  ')}`,
      says: 'aliases resolved',
    },
    { what: 'a merge-key bomb', text: mergeKeyBomb(), says: 'aliases resolved' },
    { what: 'a value that contains itself', text: selfReference, says: 'refers to itself' },
    {
      what: '200,000 nested flow sequences',
      text: deepFlow(200_000),
      says: 'nests more than 1000 flow collections',
    },
    { what: '150 nested block mappings', text: deepBlock(150), says: 'nested more than 100 levels deep' },
    {
      what: 'a 2 MB document',
      text: `kind: NodePool\nblob: "${'x'.repeat(2_000_000)}"\n`,
      says: 'a YAML document of more than 1572864 bytes',
    },
    {
      what: 'a 1 MB document of multi-byte characters (over the cap in bytes, not in characters)',
      text: `blob: "${'é'.repeat(800_000)}"\n`,
      says: '(got "1600009 bytes")',
    },
    {
      what: 'two documents where one is expected',
      text: 'a: 1\n---\nb: 2\n',
      says: 'expected one YAML document',
    },
    {
      what: 'a duplicate key',
      text: 'a: 1\na: 2\n',
      says: 'line 2, column 1: not valid YAML: Map keys must be unique',
    },
  ])('refuses $what, naming the source and saying why', ({ text, says }) => {
    const error = refusal(one(text));
    expect(error.location.source).toBe('hostile.yaml');
    expect(error.message).toContain('hostile.yaml');
    expect(error.message).toContain(says);
    // The message is an excerpt however big the input: a bound, not the document.
    expect(error.message.length).toBeLessThan(1000);
  });

  it('reads what Kubernetes reads: YAML 1.2 core scalars and merge keys', () => {
    expect(
      loadKubernetesYamlDocument(
        'date: 2024-01-01\nyes: yes\noctal: 0o17\nbase: &b { cpu: "1" }\nmerged: { <<: *b, memory: 1Gi }\n',
        'x',
      ),
    ).toStrictEqual({
      date: '2024-01-01',
      yes: 'yes',
      octal: 15,
      base: { cpu: '1' },
      merged: { cpu: '1', memory: '1Gi' },
    });
  });

  it('accepts aliases within the budget, and documents exactly at the byte cap', () => {
    expect(loadKubernetesYamlDocument(aliasBomb(2, 10), 'x')).toMatchObject({ a1: expect.any(Array) });
    const limits = { ...KUBERNETES_YAML_LIMITS, maxDocumentBytes: 64 };
    const exact = `k: "${'x'.repeat(64 - 6)}"\n`;
    expect(Buffer.byteLength(exact)).toBe(64);
    expect(loadKubernetesYamlDocument(exact, 'x', limits)).toStrictEqual({ k: 'x'.repeat(58) });
    expect(refusal(() => loadKubernetesYamlDocument(`${exact} `, 'x', limits)).message).toContain(
      'more than 64 bytes',
    );
  });

  it('hands over each document of a stream with its index, and names the document that fails', () => {
    const seen: [unknown, number][] = [];
    const error = refusal(() =>
      loadKubernetesYaml(`a: 1\n---\n---\nb: 2\n---\n${aliasBomb()}\n`, 'stream.yaml', (doc, i) =>
        seen.push([doc, i]),
      ),
    );
    expect(seen).toStrictEqual([
      [{ a: 1 }, 0],
      [null, 1],
      [{ b: 2 }, 2],
    ]);
    expect(error.location).toStrictEqual({ source: 'stream.yaml', documentIndex: 3 });
    expect(error.message).toMatch(/^stream\.yaml, document 3: /);
  });
});

describe('valueShapeIssue: bounds a decoded value before it is walked', () => {
  it('reports a value nested past the limit with the start of its path, and a cycle as too deep', () => {
    expect(valueShapeIssue(deepValue(100))).toBeUndefined();
    expect(valueShapeIssue(deepValue(101))).toMatchObject({
      field: 'k.k.k.k.k.k.k.k.k.k',
      message: 'is nested more than 100 levels deep (or refers to itself)',
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = [cycle];
    expect(valueShapeIssue(cycle)?.message).toContain('refers to itself');
  });

  it('counts shared subtrees each time they are reached, and stops at the limit', () => {
    let shared: unknown = 'x';
    for (let i = 0; i < 30; i++) shared = [shared, shared]; // 2^30 leaves, 31 objects
    expect(valueShapeIssue(shared, { maxDepth: 100, maxValues: 1000 })).toMatchObject({
      field: '(document)',
      message: expect.stringContaining('more than 1000 values'),
    });
    expect(valueShapeIssue(Array(999).fill(1), { maxDepth: 100, maxValues: 1000 })).toBeUndefined();
    expect(valueShapeIssue(Array(1000).fill(1), { maxDepth: 100, maxValues: 1000 })).toBeDefined();
  });
});

describe('renderValue: an excerpt of at most 120 characters, whatever the value', () => {
  it('writes short JSON values exactly as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const json = JSON.stringify(value);
        fc.pre(json.length <= 120);
        expect(renderValue(value)).toBe(json);
      }),
    );
  });

  it('cuts long values to 117 characters and "..." as JSON.stringify would have', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const json = JSON.stringify(value);
        fc.pre(json.length > 120);
        expect(renderValue(value)).toBe(`${json.slice(0, 117)}...`);
      }),
    );
  });

  it('renders cycles, alias-bomb trees, deep nesting and huge strings without walking them whole', () => {
    const cycle: Record<string, unknown> = { name: 'x' };
    cycle.self = cycle;
    let bomb: unknown = 'lol';
    for (let i = 0; i < 40; i++) bomb = [bomb, bomb]; // 2^40 leaves once expanded
    for (const value of [cycle, bomb, deepValue(1_000_000), 'x'.repeat(50_000_000)]) {
      const shown = renderValue(value);
      expect(shown.length).toBeLessThanOrEqual(120);
      expect(shown.endsWith('...')).toBe(true);
    }
    expect(renderValue(undefined)).toBe('nothing');
    expect(renderValue(10n)).toBe('10');
    expect(renderValue([undefined, () => 1])).toBe('[null,null]');
    expect(renderValue({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('bounds a ValidationError message: its location, fields and number of issues too', () => {
    const issues = Array.from({ length: 10_000 }, (_, i) => ({
      field: `spec.${'f'.repeat(10_000)}${i}`,
      value: 'v'.repeat(10_000),
      message: `unknown field "${'k'.repeat(10_000)}"`,
    }));
    const error = new ValidationError(issues, {
      source: 's'.repeat(100_000),
      object: `NodePool/${'n'.repeat(100_000)}`,
    });
    expect(error.message.length).toBeLessThan(25_000);
    expect(error.message).toContain('and 9980 more');
  });
});
