/**
 * Label and field selectors: the string forms of list/watch query parameters and the
 * `matchLabels`/`matchExpressions` form PodDisruptionBudgets carry, with the real semantics
 * (`!=` and `notin` also match objects without the label).
 */
import type { KubeObject } from './kube-object';
import { isJsonObject } from './kube-object';

/** One requirement of a label selector. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: 'exists' | 'doesNotExist' | 'equals' | 'notEquals' | 'in' | 'notIn' | 'gt' | 'lt';
  readonly values: readonly string[];
}

/** One requirement of a field selector. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: 'equals' | 'notEquals';
  readonly value: string;
}

/** A selector string the server cannot parse; the HTTP layer answers 400. */
export class SelectorSyntaxError extends Error {
  override readonly name = 'SelectorSyntaxError';
}

const KEY = '[A-Za-z0-9](?:[-A-Za-z0-9_./]*[A-Za-z0-9])?';
const VALUE = '(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?';
const existsRe = new RegExp(`^(${KEY})$`);
const notExistsRe = new RegExp(`^!\\s*(${KEY})$`);
const equalityRe = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`);
const setRe = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^()]*)\\)$`);
const compareRe = new RegExp(`^(${KEY})\\s*(>|<)\\s*(-?\\d+)$`);
const valueRe = new RegExp(`^${VALUE}$`);

/** Splits on commas outside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim());
}

/** Parses `a=b,c!=d,e in (f,g),!h,i`; the empty string selects everything. */
export function parseLabelSelector(text: string): LabelRequirement[] {
  if (text.trim() === '') return [];
  return splitTerms(text).map((term) => {
    let m = notExistsRe.exec(term);
    if (m) return { key: m[1], operator: 'doesNotExist', values: [] };
    m = existsRe.exec(term);
    if (m) return { key: m[1], operator: 'exists', values: [] };
    m = equalityRe.exec(term);
    if (m) return { key: m[1], operator: m[2] === '!=' ? 'notEquals' : 'equals', values: [m[3]] };
    m = setRe.exec(term);
    if (m) {
      const values = m[3].split(',').map((v) => v.trim());
      const bad = values.find((v) => !valueRe.test(v));
      if (bad !== undefined)
        throw new SelectorSyntaxError(`unable to parse requirement: invalid label value: "${bad}"`);
      return { key: m[1], operator: m[2] === 'in' ? 'in' : 'notIn', values };
    }
    m = compareRe.exec(term);
    if (m) return { key: m[1], operator: m[2] === '>' ? 'gt' : 'lt', values: [m[3]] };
    throw new SelectorSyntaxError(
      `unable to parse requirement: found '${term}', expected: a label requirement`,
    );
  });
}

/** Whether `labels` satisfy every requirement. */
export function labelsMatch(
  requirements: readonly LabelRequirement[],
  labels: Record<string, string> = {},
): boolean {
  return requirements.every(({ key, operator, values }) => {
    const has = Object.hasOwn(labels, key);
    const value = labels[key];
    switch (operator) {
      case 'exists':
        return has;
      case 'doesNotExist':
        return !has;
      case 'equals':
      case 'in':
        return has && values.includes(value);
      case 'notEquals':
      case 'notIn':
        return !has || !values.includes(value);
      case 'gt':
        return has && /^-?\d+$/.test(value) && Number(value) > Number(values[0]);
      case 'lt':
        return has && /^-?\d+$/.test(value) && Number(value) < Number(values[0]);
      default:
        return false;
    }
  });
}

/** A `metav1.LabelSelector` (`matchLabels` + `matchExpressions`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * Whether an object-form selector selects `labels`. `null`/absent selects nothing and `{}`
 * selects everything, as for a policy/v1 PodDisruptionBudget.
 */
export function labelSelectorObjectMatches(selector: unknown, labels: Record<string, string> = {}): boolean {
  if (!isJsonObject(selector)) return false;
  const { matchLabels, matchExpressions } = selector as LabelSelectorObject;
  const requirements: LabelRequirement[] = Object.entries(matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'equals',
    values: [value],
  }));
  for (const { key, operator, values = [] } of matchExpressions ?? []) {
    const op = ({ In: 'in', NotIn: 'notIn', Exists: 'exists', DoesNotExist: 'doesNotExist' } as const)[
      operator as 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'
    ];
    if (!op) return false;
    requirements.push({ key, operator: op, values });
  }
  return labelsMatch(requirements, labels);
}

/**
 * The string form of an object-form selector, for filtering a list; undefined when it selects
 * nothing (`null`, absent, or an operator the string form cannot express).
 */
export function labelSelectorToString(selector: unknown): string | undefined {
  if (!isJsonObject(selector)) return undefined;
  const { matchLabels, matchExpressions } = selector as LabelSelectorObject;
  const terms = Object.entries(matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values = [] } of matchExpressions ?? []) {
    if (operator === 'In') terms.push(`${key} in (${values.join(',')})`);
    else if (operator === 'NotIn') terms.push(`${key} notin (${values.join(',')})`);
    else if (operator === 'Exists') terms.push(key);
    else if (operator === 'DoesNotExist') terms.push(`!${key}`);
    else return undefined;
  }
  return terms.join(',');
}

/** Parses `metadata.name=x,spec.nodeName!=,status.phase==Running` (backslash escapes `,` `=` `!` `\`). */
export function parseFieldSelector(text: string): FieldRequirement[] {
  if (text.trim() === '') return [];
  const requirements: FieldRequirement[] = [];
  let field = '';
  let value = '';
  let operator: FieldRequirement['operator'] | undefined;
  const finish = () => {
    if (operator === undefined || field.trim() === '') {
      throw new SelectorSyntaxError(`invalid selector: '${text}'; can't understand '${field}${value}'`);
    }
    requirements.push({ field: field.trim(), operator, value: value.trim() });
    [field, value, operator] = ['', '', undefined];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    let literal: string | undefined;
    if (c === '\\' && i + 1 < text.length) literal = text[++i];
    else if (c === ',') {
      finish();
      continue;
    } else if (operator === undefined && (c === '=' || (c === '!' && text[i + 1] === '='))) {
      operator = c === '!' ? 'notEquals' : 'equals';
      if (c === '!' || text[i + 1] === '=') i++;
      continue;
    } else literal = c;
    if (operator === undefined) field += literal;
    else value += literal;
  }
  finish();
  return requirements;
}

/** The string value a field selector compares: missing fields read as `''`. */
export function fieldValue(object: KubeObject, field: string): string {
  let value: unknown = object;
  for (const part of field.split('.')) value = isJsonObject(value) ? value[part] : undefined;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Whether `object` satisfies every field requirement. */
export function fieldsMatch(requirements: readonly FieldRequirement[], object: KubeObject): boolean {
  return requirements.every(
    ({ field, operator, value }) => (fieldValue(object, field) === value) === (operator === 'equals'),
  );
}
