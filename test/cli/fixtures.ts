import { stringify } from 'yaml';
import type { CliIO } from '../../cli/command-support';

/** Manifest builders for CLI tests: plain objects, as a user's YAML decodes to. */

type Manifest = Record<string, unknown>;

/** A karpenter.sh/v1 NodePool; `requirements`, `taints`, `limits`, `weight` as in the CRD. */
export function nodePool(
  name = 'default',
  options: {
    nodeClass?: string;
    requirements?: unknown[];
    taints?: unknown[];
    limits?: Record<string, string | number>;
    weight?: number;
    labels?: Record<string, string>;
  } = {},
): Manifest {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      ...(options.weight !== undefined ? { weight: options.weight } : {}),
      template: {
        ...(options.labels ? { metadata: { labels: options.labels } } : {}),
        spec: {
          requirements: options.requirements ?? [
            { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5', 'c5'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
          ...(options.taints ? { taints: options.taints } : {}),
          nodeClassRef: {
            group: 'karpenter.k8s.aws',
            kind: 'EC2NodeClass',
            name: options.nodeClass ?? 'default',
          },
        },
      },
      ...(options.limits ? { limits: options.limits } : {}),
    },
  };
}

/** A karpenter.k8s.aws/v1 EC2NodeClass discovering subnets and security groups by tag. */
export function nodeClass(name = 'default'): Manifest {
  const discovery = [{ tags: { 'karpenter.sh/discovery': 'my-cluster' } }];
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      role: 'KarpenterNodeRole-my-cluster',
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: discovery,
      securityGroupSelectorTerms: discovery,
    },
  };
}

interface PodOptions {
  namespace?: string;
  cpu?: string | number;
  memory?: string;
  gpu?: number;
  nodeName?: string;
  labels?: Record<string, string>;
  tolerations?: unknown[];
  phase?: string;
}

function podSpec(options: PodOptions): Manifest {
  const requests: Record<string, string | number> = {
    cpu: options.cpu ?? '500m',
    memory: options.memory ?? '256Mi',
  };
  return {
    ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    ...(options.tolerations ? { tolerations: options.tolerations } : {}),
    containers: [
      {
        name: 'app',
        image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7',
        resources: {
          requests,
          ...(options.gpu ? { limits: { 'nvidia.com/gpu': options.gpu } } : {}),
        },
      },
    ],
  };
}

/** A core/v1 Pod. */
export function pod(name: string, options: PodOptions = {}): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: podSpec(options),
    ...(options.phase ? { status: { phase: options.phase } } : {}),
  };
}

/** A workload (Deployment by default) whose spec carries `spec` fields and a pod template. */
export function workload(
  kind: 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet',
  name: string,
  spec: Record<string, unknown> = {},
  options: PodOptions = {},
): Manifest {
  return {
    apiVersion: kind === 'Job' ? 'batch/v1' : 'apps/v1',
    kind,
    metadata: { name, ...(options.namespace ? { namespace: options.namespace } : {}) },
    spec: {
      ...spec,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name, ...options.labels } }, spec: podSpec(options) },
    },
  };
}

/** A core/v1 Node with the well-known labels of an on-demand m5.xlarge in us-east-1a. */
export function node(
  name: string,
  options: { cpu?: string; memory?: string; labels?: Record<string, string>; taints?: unknown[] } = {},
): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.kubernetes.io/zone': 'us-east-1a',
        'karpenter.sh/capacity-type': 'on-demand',
        ...options.labels,
      },
    },
    ...(options.taints ? { spec: { taints: options.taints } } : {}),
    status: { allocatable: { cpu: options.cpu ?? '3920m', memory: options.memory ?? '14Gi', pods: '58' } },
  };
}

/** A `kind: List`. */
export function list(...items: unknown[]): Manifest {
  return { apiVersion: 'v1', kind: 'List', items };
}

/** A multi-document YAML stream of `docs`, as kubectl writes it. */
export function yamlStream(...docs: unknown[]): string {
  return docs.map((d) => stringify(d, { aliasDuplicateObjects: false })).join('---\n');
}

/** A NodePool, its EC2NodeClass and `docs`, as YAML: the smallest plannable input. */
export function withDefaultPool(...docs: unknown[]): string {
  return yamlStream(nodePool(), nodeClass(), ...docs);
}

/** CliIO over in-memory files and stdin, recording what the CLI prints. */
export class FakeIO implements CliIO {
  out = '';
  err = '';

  constructor(
    private readonly files: Readonly<Record<string, string>> = {},
    private readonly input = '',
  ) {}

  /** Files the CLI wrote, by path. */
  readonly written = new Map<string, string>();

  readonly stdin = async (): Promise<string> => this.input;
  readonly writeFile = async (path: string, text: string): Promise<void> => {
    this.written.set(path, text);
  };
  readonly now = (): number => Date.parse('2026-11-27T12:00:00Z');
  readonly stdout = (text: string): void => {
    this.out += text;
  };
  readonly stderr = (text: string): void => {
    this.err += text;
  };
  readonly readFile = async (path: string): Promise<string> => {
    if (!Object.hasOwn(this.files, path)) {
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    }
    return this.files[path];
  };
}
