import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type KubeObject, manifestObject } from './manifests';

/**
 * CustomResourceDefinitions as the tests see them: their OpenAPI v3 schemas walked node by node,
 * their CEL rules listed, and their spec schema compiled with ajv so that objects can be checked
 * against it as the API server would, CEL rules aside (they need a CEL runtime).
 */

/** A CEL validation rule (x-kubernetes-validations entry). */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
}

/** The subset of JSONSchemaProps the CRDs use. */
export interface SchemaNode {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly items?: SchemaNode;
  readonly required?: readonly string[];
  readonly anyOf?: readonly SchemaNode[];
  readonly default?: unknown;
  readonly uniqueItems?: boolean;
  readonly 'x-kubernetes-validations'?: readonly CelRule[];
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly [keyword: string]: unknown;
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly priority?: number;
}

export interface CustomResourceDefinition extends KubeObject {
  readonly spec: {
    readonly group: string;
    readonly scope: 'Cluster' | 'Namespaced';
    readonly names: { readonly kind: string; readonly plural: string; readonly singular: string };
    readonly versions: readonly {
      readonly name: string;
      readonly served: boolean;
      readonly storage: boolean;
      readonly additionalPrinterColumns?: readonly PrinterColumn[];
      readonly subresources?: { readonly status?: object; readonly scale?: object };
      readonly schema: { readonly openAPIV3Schema: SchemaNode };
    }[];
  };
}

/** The kinds podlift's CRDs define, with the CRD object's name. */
export const CRD_NAMES = {
  NodePool: 'nodepools.karpenter.sh',
  NodeClaim: 'nodeclaims.karpenter.sh',
  EC2NodeClass: 'ec2nodeclasses.karpenter.k8s.aws',
} as const;

export type CrdKind = keyof typeof CRD_NAMES;

export function crd(kind: CrdKind): CustomResourceDefinition {
  return manifestObject<CustomResourceDefinition>('CustomResourceDefinition', CRD_NAMES[kind]);
}

/** The v1 version's schema (the only version served). */
export function crdSchema(kind: CrdKind): SchemaNode {
  const v1 = crd(kind).spec.versions.find((v) => v.name === 'v1');
  if (!v1) throw new Error(`${CRD_NAMES[kind]} has no v1 version`);
  return v1.schema.openAPIV3Schema;
}

/** A schema node and its path: `spec.template.spec.requirements[].key`, `spec.limits.*`. */
export interface SchemaLocation {
  readonly path: string;
  readonly node: SchemaNode;
}

/** Every node of `schema`, depth first, starting with `schema` itself at `root`. */
export function schemaNodes(schema: SchemaNode, root = ''): SchemaLocation[] {
  const join = (name: string) => (root === '' ? name : `${root}.${name}`);
  const children: SchemaLocation[] = [
    ...Object.entries(schema.properties ?? {}).flatMap(([name, node]) => schemaNodes(node, join(name))),
    ...(typeof schema.additionalProperties === 'object'
      ? schemaNodes(schema.additionalProperties, join('*'))
      : []),
    ...(schema.items ? schemaNodes(schema.items, `${root}[]`) : []),
    ...(schema.anyOf ?? []).flatMap((node, i) => schemaNodes(node, `${root}<anyOf ${i}>`)),
  ];
  return [{ path: root, node: schema }, ...children];
}

/** A CEL rule and where in the schema it sits. */
export interface LocatedRule extends CelRule {
  readonly kind: CrdKind;
  readonly path: string;
}

/** Every CEL rule of a CRD's schema. */
export function celRules(kind: CrdKind): LocatedRule[] {
  return schemaNodes(crdSchema(kind)).flatMap(({ path, node }) =>
    (node['x-kubernetes-validations'] ?? []).map((r) => ({ kind, path, rule: r.rule, message: r.message })),
  );
}

/** Transition rules compare with the previous object (`oldSelf`): they only run on updates. */
export function isTransitionRule(rule: CelRule): boolean {
  return /\boldSelf\b/.test(rule.rule);
}

/** The outcome of checking an object against a CRD schema. */
export interface SchemaCheck {
  readonly valid: boolean;
  /** `instancePath: message` per failure. */
  readonly errors: readonly string[];
  /** The object after the schema's defaults were applied (the input is not changed). */
  readonly defaulted: unknown;
}

function newAjv(): Ajv {
  // useDefaults: the API server defaults before it validates, so `required` fields with a
  // default (a budget's `nodes`) may be left out. Formats (date-time, int32) are not checked:
  // ajv knows none without ajv-formats, and the tests are about structure and patterns.
  const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, validateFormats: false });
  for (const keyword of [
    'x-kubernetes-validations',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-int-or-string',
    'x-kubernetes-embedded-resource',
    'x-kubernetes-list-map-keys',
    'x-kubernetes-map-type',
  ]) {
    ajv.addKeyword({ keyword });
  }
  // Structural schemas may not say uniqueItems; a `set` list is how they ask for unique items.
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-type',
    type: 'array',
    errors: false,
    validate: (listType: string, data: unknown[]) =>
      listType !== 'set' || new Set(data.map((x) => JSON.stringify(x))).size === data.length,
  });
  return ajv;
}

const validators = new Map<string, ValidateFunction>();

/** Compiles (once) a schema node; `key` names it in the cache. */
function compiled(key: string, schema: SchemaNode): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = newAjv().compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/** Checks a value against any schema node (used for defaults). */
export function checkAgainst(schema: SchemaNode, value: unknown): SchemaCheck {
  const defaulted = structuredClone(value);
  const validate = newAjv().compile(schema);
  const valid = validate(defaulted);
  return { valid, errors: describeErrors(validate.errors), defaulted };
}

/** Checks an object's `spec` against the CRD's spec schema, CEL rules not run. */
export function checkSpec(kind: CrdKind, manifest: object): SchemaCheck {
  const specSchema = crdSchema(kind).properties?.spec;
  if (!specSchema) throw new Error(`${CRD_NAMES[kind]} has no spec schema`);
  const validate = compiled(kind, specSchema);
  const defaulted = structuredClone((manifest as { readonly spec?: unknown }).spec);
  const valid = validate(defaulted);
  return { valid, errors: describeErrors(validate.errors), defaulted };
}
