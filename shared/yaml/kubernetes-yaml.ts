import { Composer, type Document, LineCounter, Parser, type YAMLError } from 'yaml';
import { MANIFEST_SHAPE, type ValueShapeLimits, valueShapeIssue } from '../core/manifests/value-shape';
import { ValidationError, type ValidationIssue } from '../core/model/errors';

/**
 * Reading YAML the way Kubernetes does (kubectl converts YAML to JSON before the API server
 * sees it: YAML 1.2 core, so an unquoted `2024-01-01` stays a string, plus `<<` merge keys),
 * with limits that no document can get past. Every YAML podlift reads from a user goes through
 * here: SSM parameters, `podlift plan` input, the CDK construct's manifest files and the
 * simulator's scenarios.
 */

/** What one document may cost. */
export interface YamlLimits extends ValueShapeLimits {
  /** UTF-8 bytes of one document's text, comments included. */
  readonly maxDocumentBytes: number;
  /**
   * Aliases one document may resolve, each weighted by the aliases inside what it refers to
   * (the `yaml` package's `maxAliasCount`): the bound on an alias bomb's expansion.
   */
  readonly maxAliasCount: number;
}

/**
 * The limits for documents that hold one Kubernetes object: 1.5 MiB, the largest object
 * kube-apiserver stores (etcd's default request limit); 100 aliases (the `yaml` package's
 * default; kubectl's sigs.k8s.io/yaml has its own alias budget too); and the object shape of
 * {@link MANIFEST_SHAPE}.
 */
export const KUBERNETES_YAML_LIMITS: YamlLimits = {
  ...MANIFEST_SHAPE,
  maxDocumentBytes: 1_572_864,
  maxAliasCount: 100,
};

/**
 * A line that starts or ends a YAML document (`---`, `...`). No scalar can hold one (YAML
 * 1.2, "c-forbidden"), so the text between two of them bounds one document's text.
 */
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/**
 * Parses a multi-document YAML stream and hands each document to `onDocument` as soon as it is
 * parsed (the parsed tree dies young: 20,000 pod documents held until the end cost full GCs).
 * Empty documents are handed over as null.
 * @param source the file or parameter name used in messages
 * @throws ValidationError naming the source, the document index and, for syntax errors, the line
 *   and column with that line as the value; for a document past `limits`, which limit
 */
export function loadKubernetesYaml(
  text: string,
  source: string,
  onDocument: (doc: unknown, index: number) => void,
  limits: YamlLimits = KUBERNETES_YAML_LIMITS,
): void {
  checkDocumentSizes(text, source, limits);
  checkFlowNesting(text, source);
  const lines = new LineCounter();
  const composer = new Composer({ schema: 'core', merge: true });
  let index = 0;
  const take = (doc: Document.Parsed) => {
    onDocument(documentValue(doc, text, source, index, lines, limits), index);
    index += 1;
  };
  try {
    for (const token of new Parser(lines.addNewLine).parse(text))
      for (const doc of composer.next(token)) take(doc);
    for (const doc of composer.end()) take(doc);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    // The parser's own failures (a stack overflow on deep flow nesting, for one) are the
    // input's fault too: report them like a syntax error, never as a crash.
    throw new ValidationError(
      [{ field: '(document)', value: undefined, message: `cannot be read as YAML: ${messageOf(error)}` }],
      { source, documentIndex: index },
      { cause: error },
    );
  }
}

/**
 * The one document of `text` (null when it is empty).
 * @throws ValidationError as {@link loadKubernetesYaml} does, and when `text` holds several documents
 */
export function loadKubernetesYamlDocument(
  text: string,
  source: string,
  limits: YamlLimits = KUBERNETES_YAML_LIMITS,
): unknown {
  let only: unknown = null;
  loadKubernetesYaml(
    text,
    source,
    (doc, index) => {
      if (index > 0) {
        throw new ValidationError(
          [{ field: '(document)', value: undefined, message: 'expected one YAML document, found several' }],
          { source, documentIndex: index },
        );
      }
      only = doc;
    },
    limits,
  );
  return only;
}

/** Refuses the stream before parsing when the text between two document markers is too big. */
function checkDocumentSizes(text: string, source: string, limits: YamlLimits): void {
  // A character is at least one byte: short texts need no counting.
  if (text.length <= limits.maxDocumentBytes / 3) return;
  const starts = [0, ...[...text.matchAll(DOCUMENT_MARKER)].map((m) => m.index), text.length];
  const encoder = new TextEncoder();
  for (let i = 0; i + 1 < starts.length; i++) {
    const [from, to] = [starts[i] as number, starts[i + 1] as number];
    const chars = to - from;
    if (chars * 3 <= limits.maxDocumentBytes) continue;
    const bytes = chars > limits.maxDocumentBytes ? chars : encoder.encode(text.slice(from, to)).length;
    if (bytes <= limits.maxDocumentBytes) continue;
    const line = text.slice(0, from).split('\n').length;
    throw new ValidationError(
      [
        {
          field: `line ${line}`,
          value: `${chars > limits.maxDocumentBytes ? 'over ' : ''}${bytes} bytes`,
          message: `a YAML document of more than ${limits.maxDocumentBytes} bytes (the largest object Kubernetes stores)`,
        },
      ],
      { source },
    );
  }
}

/**
 * Nested flow collections (`[[[[…`) the parser is not asked to read: the `yaml` package
 * recurses per level, overflows the stack a few hundred levels down and takes seconds to get
 * there on a deep enough input. Counted naively (brackets in strings and comments count too),
 * so the bound is far above any real document's nesting and below what is slow.
 */
const MAX_FLOW_BRACKETS = 1000;

/** Refuses the stream before parsing when its brackets nest deeper than {@link MAX_FLOW_BRACKETS}. */
function checkFlowNesting(text: string, source: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > MAX_FLOW_BRACKETS) {
        throw new ValidationError(
          [
            {
              field: `line ${text.slice(0, i).split('\n').length}`,
              value: undefined,
              message: `nests more than ${MAX_FLOW_BRACKETS} flow collections ([ or {)`,
            },
          ],
          { source },
        );
      }
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth -= 1;
  }
}

/** A parsed document as plain data, or a ValidationError saying why it cannot be. */
function documentValue(
  doc: Document.Parsed,
  text: string,
  source: string,
  documentIndex: number,
  lines: LineCounter,
  limits: YamlLimits,
): unknown {
  const where = { source, documentIndex };
  const [first] = doc.errors;
  if (first) throw new ValidationError([syntaxIssue(first, text, lines)], where, { cause: first });
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    // The `yaml` package refuses an alias bomb here, before expanding it.
    throw new ValidationError(
      [
        {
          field: '(document)',
          value: undefined,
          message: `cannot be read as YAML: ${messageOf(error)} (more than ${limits.maxAliasCount} aliases resolved)`,
        },
      ],
      where,
      { cause: error },
    );
  }
  const shape = valueShapeIssue(value, limits);
  if (shape) throw new ValidationError([shape], where);
  return value;
}

/** A syntax error as an issue: the line and column, the offending line as the value. */
function syntaxIssue(error: YAMLError, text: string, lines: LineCounter): ValidationIssue {
  const { line, col } = lines.linePos(error.pos[0]);
  const start = lines.lineStarts[line - 1] ?? 0;
  const end = text.indexOf('\n', start);
  const lineText = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
  return {
    field: `line ${line}, column ${col}`,
    value: lineText,
    message: `not valid YAML: ${error.message.split('\n', 1)[0]?.replace(/ at line \d+, column \d+:?$/, '')}`,
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A plain object (not null, not an array). */
export type Obj = Readonly<Record<string, unknown>>;

/** Whether `v` is a plain object (a YAML mapping), not null and not an array. */
export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
