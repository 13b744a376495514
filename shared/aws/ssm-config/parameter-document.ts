import { ValidationError } from '../../core/model/errors';
import {
  KUBERNETES_YAML_LIMITS,
  loadKubernetesYamlDocument,
  type YamlLimits,
} from '../../yaml/kubernetes-yaml';

/**
 * What one parameter value may cost to read: SSM's advanced tier holds at most 8 KB, so a
 * longer value did not come from SSM; the alias and shape limits are those of any manifest.
 */
const PARAMETER_LIMITS: YamlLimits = { ...KUBERNETES_YAML_LIMITS, maxDocumentBytes: 8192 };

/**
 * Decodes one SSM parameter value holding a single manifest: JSON when it starts with `{`
 * (so JSON's own error messages apply), YAML otherwise (as Kubernetes reads it, with the
 * limits of shared/yaml, the same reader as `podlift plan`'s).
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
  if (Buffer.byteLength(text, 'utf8') > PARAMETER_LIMITS.maxDocumentBytes) {
    throw new ValidationError(
      [
        {
          field: 'value',
          value: `${Buffer.byteLength(text, 'utf8')} bytes`,
          message: `longer than the ${PARAMETER_LIMITS.maxDocumentBytes} bytes an SSM parameter holds`,
        },
      ],
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
  return loadKubernetesYamlDocument(text, parameter, PARAMETER_LIMITS);
}
