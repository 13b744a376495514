import type { Type } from 'js-yaml';
import * as jsYaml from 'js-yaml';
import { ValidationError } from '../shared/core/model/errors';

/**
 * Reading YAML the way Kubernetes does (kubectl converts YAML to JSON before the API server
 * sees it), and the mappings its documents are made of.
 */

// @types/js-yaml does not declare `types`, which js-yaml 4 exports at runtime.
const { types: yamlTypes } = jsYaml as unknown as { types: { merge: Type } };

/**
 * YAML 1.2 core plus merge keys. Kubernetes reads YAML by converting it to JSON, so an unquoted
 * `2024-01-01` stays a string (js-yaml's default schema would make it a Date).
 */
const KUBERNETES_YAML = jsYaml.CORE_SCHEMA.extend({ implicit: [yamlTypes.merge] });

/** A plain object (not null, not an array). */
export type Obj = Readonly<Record<string, unknown>>;

/** Whether `v` is a plain object (a YAML mapping), not null and not an array. */
export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses a multi-document YAML stream and hands each document to `onDocument` as soon as it
 * is parsed, so the parsed tree dies young (20,000 pod documents held until the end were
 * promoted to the old generation and cost full GCs).
 * @param source the file name used in messages
 * @throws ValidationError naming the line and column of a syntax error, with that line as the value
 */
export function loadKubernetesYaml(text: string, source: string, onDocument: (doc: unknown) => void): void {
  try {
    jsYaml.loadAll(text, onDocument, { schema: KUBERNETES_YAML, filename: source });
  } catch (e) {
    if (e instanceof jsYaml.YAMLException) {
      const { line, column } = e.mark ?? { line: 0, column: 0 };
      // The offending line stands in for the value: it is what the user has to find and fix.
      const lineText = text.split(/\r?\n/, line + 1)[line];
      throw new ValidationError(
        [
          {
            field: `line ${line + 1}, column ${column + 1}`,
            value: lineText,
            message: `not valid YAML: ${e.reason}`,
          },
        ],
        { source },
        { cause: e },
      );
    }
    throw e;
  }
}
