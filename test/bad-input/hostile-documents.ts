/**
 * Hostile documents, as a reviewer measured them: each small enough to store (an SSM parameter,
 * a file, an object) and each made to cost a reader that does not bound its work.
 */

/** The letters used as anchor names. */
const anchor = (i: number) => `a${i}`;

/**
 * A "billion laughs" alias bomb of `levels` anchors, each a list of `fanout` aliases to the one
 * before: fanout^levels scalars once expanded (10^9 at 9 × 10) in well under 1 KB.
 */
export function aliasBomb(levels = 9, fanout = 10, indent = ''): string {
  const lines = [`${indent}${anchor(0)}: &${anchor(0)} [${Array(fanout).fill('"lol"').join(', ')}]`];
  for (let i = 1; i < levels; i++)
    lines.push(
      `${indent}${anchor(i)}: &${anchor(i)} [${Array(fanout)
        .fill(`*${anchor(i - 1)}`)
        .join(', ')}]`,
    );
  return lines.join('\n');
}

/** The same bomb through merge keys (`<<: [*a, *b]`), which a reader may resolve separately from aliases. */
export function mergeKeyBomb(levels = 9): string {
  const lines = [`${anchor(0)}: &${anchor(0)} { x0: lol, y0: lol }`];
  for (let i = 1; i < levels; i++)
    lines.push(
      `${anchor(i)}: &${anchor(i)} { <<: [${Array(4)
        .fill(`*${anchor(i - 1)}`)
        .join(', ')}], k${i}: [${Array(8)
        .fill(`*${anchor(i - 1)}`)
        .join(', ')}] }`,
    );
  return lines.join('\n');
}

/** A node that contains itself: `&a [*a]` makes a cycle of the decoded value. */
export const selfReference = 'spec: &loop\n  template: [*loop]\n';

/** `depth` nested flow sequences: `[[[…]]]`. */
export const deepFlow = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** `depth` nested block mappings, one level of indentation each. */
export const deepBlock = (depth: number) =>
  `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} leaf\n`;

/** `depth` nested JSON objects: `{"k":{"k":…}}`. */
export const deepJson = (depth: number) => `${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A value nested `depth` levels deep, built without recursion. */
export function deepValue(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { k: value };
  return value;
}

/** A manifest header for `kind` named `name`. */
export function header(kind: 'NodePool' | 'EC2NodeClass', name: string): string {
  const apiVersion = kind === 'NodePool' ? 'karpenter.sh/v1' : 'karpenter.k8s.aws/v1';
  return `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
}

/** A NodePool whose spec is valid apart from what `extra` (YAML lines under `spec:`) breaks. */
export function nodePoolYaml(name: string, extra = ''): string {
  return `${header('NodePool', name)}spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements: [{ key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }]
${extra}`;
}
