import type { Type } from 'js-yaml';
import * as jsYaml from 'js-yaml';
import { ValidationError } from '../../core/model/errors';

// @types/js-yaml does not declare `types`, which js-yaml 4 exports at runtime.
const { types: yamlTypes } = jsYaml as unknown as { types: { merge: Type } };

/**
 * YAML 1.2 core plus merge keys, as Kubernetes reads YAML (an unquoted `2024-01-01` stays a
 * string). The same schema as `podlift plan` (cli/kubernetes-yaml.ts).
 */
const KUBERNETES_YAML = jsYaml.CORE_SCHEMA.extend({ implicit: [yamlTypes.merge] });

/**
 * Decodes one SSM parameter value holding a single manifest: JSON when it starts with `{`
 * (so JSON's own error messages apply), YAML otherwise.
 *
 * @param parameter the parameter name, which becomes the error's `location.source`
 * @throws ValidationError naming the parameter, and for syntax errors the line and column
 */
export function decodeParameterDocument(text: string, parameter: string): unknown {
  if (text.trim() === '') {
    throw new ValidationError(
      [{ field: 'value', value: text, message: 'empty: expected one YAML or JSON manifest' }],
      { source: parameter },
    );
  }
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ValidationError(
        [{ field: 'value', value: text.slice(0, 60), message: `not valid JSON: ${(e as Error).message}` }],
        { source: parameter },
        { cause: e },
      );
    }
  }
  try {
    return jsYaml.load(text, { schema: KUBERNETES_YAML, filename: parameter });
  } catch (e) {
    if (!(e instanceof jsYaml.YAMLException)) throw e;
    const { line, column } = e.mark ?? { line: 0, column: 0 };
    // The offending line stands in for the value: it is what the user has to find and fix.
    throw new ValidationError(
      [
        {
          field: `line ${line + 1}, column ${column + 1}`,
          value: text.split(/\r?\n/, line + 1)[line],
          message: `not valid YAML: ${e.reason}`,
        },
      ],
      { source: parameter },
      { cause: e },
    );
  }
}
