import { describe, expect, it } from 'vitest';
import { EC2NODECLASS_API_VERSION } from '../../shared/core/manifests/ec2nodeclass-schema';
import { NODEPOOL_API_VERSION } from '../../shared/core/manifests/nodepool-schema';
import {
  CRD_NAMES,
  type CrdKind,
  checkAgainst,
  crd,
  crdSchema,
  type PrinterColumn,
  type SchemaNode,
  schemaNodes,
} from './crd-schema';
import { manifestDocuments, manifestFiles, readKustomization } from './manifests';

const KINDS = Object.keys(CRD_NAMES) as CrdKind[];

describe('manifests/', () => {
  it('parses: every document of every file is a Kubernetes object', () => {
    const kinds = manifestDocuments().map((d) => d.object.kind);
    expect(new Set(kinds)).toEqual(
      new Set([
        'CustomResourceDefinition',
        'Namespace',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'Deployment',
      ]),
    );
  });

  it('lists every manifest file in kustomization.yaml, and only those', () => {
    expect([...readKustomization().resources].sort()).toEqual(manifestFiles());
  });

  it('defines no object twice', () => {
    const ids = manifestDocuments().map(
      ({ object: o }) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`,
    );
    expect(ids.length).toBe(new Set(ids).size);
  });

  it('puts every namespaced object in the podlift namespace', () => {
    const namespaced = manifestDocuments().filter(({ object: o }) =>
      ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment'].includes(o.kind),
    );
    expect(namespaced.length).toBeGreaterThan(0);
    for (const { file, object } of namespaced) expect(object.metadata.namespace, file).toBe('podlift');
  });
});

describe.each(KINDS)('the %s CRD', (kind) => {
  const definition = crd(kind);
  const schema = crdSchema(kind);
  const nodes = schemaNodes(schema);

  it('is cluster-scoped, named plural.group, and serves and stores v1 only', () => {
    const { group, names, scope, versions } = definition.spec;
    expect(definition.metadata.name).toBe(`${names.plural}.${group}`);
    expect(names.kind).toBe(kind);
    expect(scope).toBe('Cluster');
    expect(versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1', true, true]]);
  });

  it('has a status subresource', () => {
    expect(definition.spec.versions[0].subresources?.status).toEqual({});
  });

  it('is structural: every node has a type, objects say what they hold, arrays have items', () => {
    for (const { path, node } of nodes) {
      if (node['x-kubernetes-int-or-string']) {
        expect(node.anyOf, path).toEqual([{ type: 'integer' }, { type: 'string' }]);
        continue;
      }
      if (path.includes('<anyOf')) continue;
      expect(node.type, path || '<root>').toBeDefined();
      if (node.type === 'array') expect(node.items, path).toBeDefined();
      if (node.type === 'object' && path !== 'metadata') {
        const holds =
          node.properties !== undefined ||
          typeof node.additionalProperties === 'object' ||
          node['x-kubernetes-preserve-unknown-fields'] === true;
        expect(holds, path || '<root>').toBe(true);
      }
      // Forbidden in structural schemas.
      expect(node.properties !== undefined && node.additionalProperties !== undefined, path).toBe(false);
      expect(node.uniqueItems, path).toBeUndefined();
      expect(node.additionalProperties, path).not.toBe(false);
      for (const field of node.required ?? [])
        expect(node.properties, `${path}.${field}`).toHaveProperty(field);
    }
  });

  it('has defaults that its own schema accepts', () => {
    const defaulted = nodes.filter(({ node }) => node.default !== undefined);
    for (const { path, node } of defaulted) {
      const { default: value, ...rest } = node;
      expect(checkAgainst(rest as SchemaNode, value).errors, path).toEqual([]);
    }
  });
});

describe('CRD groups', () => {
  it("are the apiVersions podlift's core parses", () => {
    const apiVersion = (kind: CrdKind) => `${crd(kind).spec.group}/v1`;
    expect(apiVersion('NodePool')).toBe(NODEPOOL_API_VERSION);
    expect(apiVersion('NodeClaim')).toBe(NODEPOOL_API_VERSION);
    expect(apiVersion('EC2NodeClass')).toBe(EC2NODECLASS_API_VERSION);
  });
});

describe('kubectl get columns', () => {
  const columns = (kind: CrdKind) =>
    (crd(kind).spec.versions[0].additionalPrinterColumns ?? []).map((c: PrinterColumn) => ({
      name: c.name,
      jsonPath: c.jsonPath,
      priority: c.priority ?? 0,
    }));
  const READY = '.status.conditions[?(@.type=="Ready")].status';
  const AGE = '.metadata.creationTimestamp';

  it('for NodePools: NodeClass, Nodes, Ready, Age; with -o wide also Weight, CPU and Memory', () => {
    expect(columns('NodePool')).toEqual([
      { name: 'NodeClass', jsonPath: '.spec.template.spec.nodeClassRef.name', priority: 0 },
      { name: 'Nodes', jsonPath: '.status.nodes', priority: 0 },
      { name: 'Ready', jsonPath: READY, priority: 0 },
      { name: 'Age', jsonPath: AGE, priority: 0 },
      { name: 'Weight', jsonPath: '.spec.weight', priority: 1 },
      { name: 'CPU', jsonPath: '.status.resources.cpu', priority: 1 },
      { name: 'Memory', jsonPath: '.status.resources.memory', priority: 1 },
    ]);
  });

  it('for NodeClaims: Type, Capacity, Zone, Node, Ready, Age first', () => {
    expect(columns('NodeClaim').slice(0, 6)).toEqual([
      { name: 'Type', jsonPath: '.metadata.labels.node\\.kubernetes\\.io/instance-type', priority: 0 },
      { name: 'Capacity', jsonPath: '.metadata.labels.karpenter\\.sh/capacity-type', priority: 0 },
      { name: 'Zone', jsonPath: '.metadata.labels.topology\\.kubernetes\\.io/zone', priority: 0 },
      { name: 'Node', jsonPath: '.status.nodeName', priority: 0 },
      { name: 'Ready', jsonPath: READY, priority: 0 },
      { name: 'Age', jsonPath: AGE, priority: 0 },
    ]);
    expect(
      columns('NodeClaim')
        .slice(6)
        .every((c) => c.priority === 1),
    ).toBe(true);
  });

  it('for EC2NodeClasses: Ready, Age; with -o wide also Role', () => {
    expect(columns('EC2NodeClass')).toEqual([
      { name: 'Ready', jsonPath: READY, priority: 0 },
      { name: 'Age', jsonPath: AGE, priority: 0 },
      { name: 'Role', jsonPath: '.spec.role', priority: 1 },
    ]);
  });

  it.each(KINDS)('for %s point at fields the schema defines', (kind) => {
    const paths = new Set(schemaNodes(crdSchema(kind)).map((n) => n.path));
    for (const { jsonPath } of columns(kind)) {
      if (jsonPath.startsWith('.metadata.')) continue;
      const field = jsonPath
        .slice(1)
        .replace(/\[\?\(.*\)\]/, '[]')
        .replace(/\.(cpu|memory)$/, '.*');
      expect(paths, jsonPath).toContain(field);
    }
  });
});
