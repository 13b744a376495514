import { readFileSync } from 'node:fs';
import { renderValue } from '../../shared/core/model/errors';
import { loadKubernetesYamlDocument } from '../../shared/yaml/kubernetes-yaml';
import { type Scenario, scenario } from './schema';

/** A scenario file that cannot be used: every problem, each naming the file, step, field and value. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: invalid scenario\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Reads and validates a scenario file. */
export function loadScenarioFile(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ScenarioError(file, [`cannot read the file: ${(error as Error).message}`]);
  }
  return parseScenario(file, text);
}

/** Validates a scenario given as YAML text; `file` names it in errors. */
export function parseScenario(file: string, text: string): Scenario {
  let raw: unknown;
  try {
    // The product's reader and limits: an alias bomb, a cycle or a 100,000-level nesting is
    // refused here, before the schema or the error messages walk it.
    raw = loadKubernetesYamlDocument(text, file);
  } catch (error) {
    throw new ScenarioError(file, [(error as Error).message]);
  }
  const parsed = scenario.safeParse(raw);
  if (!parsed.success)
    throw new ScenarioError(
      file,
      parsed.error.issues.map((issue) => {
        const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
        return `${describePath(raw, path)}: ${issue.message} (got ${renderValue(valueAt(raw, path))})`;
      }),
    );
  const result = parsed.data;
  const late = result.timeline.findIndex((s) => s.at > result.duration);
  if (late >= 0)
    throw new ScenarioError(file, [
      `timeline[${late}].at: the step falls after the scenario's duration (got ${renderValue(valueAt(raw, ['timeline', late, 'at']))})`,
    ]);
  return result;
}

/** `timeline[3] (at 5m).scale.replicas`: the step's `at` helps find it in the file. */
function describePath(raw: unknown, path: readonly (string | number)[]): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  path.forEach((part, i) => {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
    if (i === 1 && path[0] === 'timeline') {
      const at = valueAt(raw, ['timeline', part, 'at']);
      if (at !== undefined) out += ` (at ${String(at)})`;
    }
  });
  return out;
}

function valueAt(raw: unknown, path: readonly (string | number)[]): unknown {
  let current = raw;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}
