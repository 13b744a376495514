import { parse as parseYaml } from 'yaml';
import {
  CONTENT_TYPE_NODE_CONFIG,
  looksLikeMimeArchive,
  mimeHeader,
  parseMimeArchive,
} from '../../shared/aws/userdata/mime-archive';
import { isTomlTable, parseToml, type TomlTable } from '../../shared/aws/userdata/toml';

/** What a node's bootstrap tells its kubelet: the labels and taints it registers with, and max pods. */
export interface NodeBootstrap {
  readonly clusterName: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly { readonly key: string; readonly value?: string; readonly effect: string }[];
  readonly maxPods?: number;
  /**
   * The device kubelet's filesystem lives on when it is not the AMI's root device: Bottlerocket
   * keeps its data on the second volume, /dev/xvdb (Karpenter's EphemeralBlockDevice).
   */
  readonly dataDevice?: string;
}

/** User data the world cannot boot a kubelet from; names the instance and why. */
export class UnbootableUserDataError extends Error {
  override readonly name = 'UnbootableUserDataError';
  constructor(instanceId: string, why: string) {
    super(`instance ${instanceId}: cannot boot a kubelet from its user data: ${why}`);
  }
}

/**
 * Reads the user data an instance was launched with as the node's bootstrap would: nodeadm
 * (AL2023) merges the `application/node.eks.aws` NodeConfig parts of the MIME archive in order,
 * later ones winning, and passes `kubelet.config.registerWithTaints`, `maxPods` and the
 * `--node-labels` flag to kubelet (awslabs/amazon-eks-ami nodeadm `internal/kubelet/config.go`);
 * Bottlerocket reads `settings.kubernetes.node-labels`, `node-taints` (`key = ["value:Effect"]`)
 * and `max-pods` from its TOML; a Windows instance runs the `<powershell>` block and reads the
 * `-EKSClusterName` and `-KubeletExtraArgs` its Start-EKSBootstrap.ps1 call passes
 * ({@link fromStartEksBootstrap}). The world registers the Node from exactly this, so a label or
 * taint podlift forgot to write into the user data is missing from the Node as it would be.
 */
export function readNodeBootstrap(
  instanceId: string,
  userDataBase64: string | undefined,
  platform: 'linux' | 'windows' = 'linux',
): NodeBootstrap {
  if (userDataBase64 === undefined) throw new UnbootableUserDataError(instanceId, 'it has none');
  const text = Buffer.from(userDataBase64, 'base64').toString('utf8');
  if (platform === 'windows') return fromStartEksBootstrap(instanceId, text);
  if (looksLikeMimeArchive(text)) return fromNodeadm(instanceId, text);
  try {
    return fromBottlerocket(parseToml(text));
  } catch (error) {
    throw new UnbootableUserDataError(
      instanceId,
      `neither a MIME archive nor Bottlerocket TOML (${(error as Error).message})`,
    );
  }
}

// biome-ignore lint/suspicious/noExplicitAny: NodeConfig is untyped YAML
type Json = Record<string, any>;

function fromNodeadm(instanceId: string, text: string): NodeBootstrap {
  const archive = parseMimeArchive(text);
  if (!archive.ok) throw new UnbootableUserDataError(instanceId, archive.reason);
  const configs = archive.parts
    .filter((part) => (mimeHeader(part, 'Content-Type') ?? '').startsWith(CONTENT_TYPE_NODE_CONFIG))
    .map((part) => {
      try {
        return parseYaml(part.content) as Json;
      } catch (error) {
        // nodeadm stops on a NodeConfig it cannot read: the kubelet never starts.
        throw new UnbootableUserDataError(
          instanceId,
          `a NodeConfig part is not YAML (${(error as Error).message})`,
        );
      }
    });
  if (configs.length === 0) throw new UnbootableUserDataError(instanceId, 'no NodeConfig part');
  let clusterName = '';
  let labels: Record<string, string> = {};
  let taints: NodeBootstrap['taints'] = [];
  let maxPods: number | undefined;
  for (const config of configs) {
    const spec = (config?.spec ?? {}) as Json;
    clusterName = spec.cluster?.name ?? clusterName;
    const kubelet = (spec.kubelet?.config ?? {}) as Json;
    if (Array.isArray(kubelet.registerWithTaints))
      taints = kubelet.registerWithTaints as NodeBootstrap['taints'];
    if (typeof kubelet.maxPods === 'number') maxPods = kubelet.maxPods;
    for (const flag of (spec.kubelet?.flags ?? []) as string[]) {
      const match = /^--node-labels="?([^"]*)"?$/.exec(flag);
      if (match) labels = { ...labels, ...parseLabelList(match[1]) };
    }
  }
  return { clusterName, labels, taints, ...(maxPods !== undefined ? { maxPods } : {}) };
}

/**
 * A Windows node's bootstrap: EC2Launch runs the script between the first `<powershell>` and
 * `</powershell>` tags; the kubelet joins only if that script calls the AMI's
 * Start-EKSBootstrap.ps1 (`& $EKSBootstrapScriptFile -EKSClusterName ...`), and starts with
 * the flags of its `-KubeletExtraArgs` (`--node-labels`, `--register-with-taints`, `--max-pods`).
 * Parameter values may be single-quoted (`''` is a quote), double-quoted or bare, as PowerShell
 * reads them.
 */
function fromStartEksBootstrap(instanceId: string, text: string): NodeBootstrap {
  const block = /<powershell>([\s\S]*?)<\/powershell>/.exec(text)?.[1];
  if (block === undefined)
    throw new UnbootableUserDataError(instanceId, 'EC2Launch finds no <powershell> block');
  const call = block.split('\n').find((line) => /^\s*&\s+\S+\s.*-EKSClusterName\s/.test(line));
  if (call === undefined) {
    throw new UnbootableUserDataError(instanceId, 'its PowerShell never calls Start-EKSBootstrap.ps1');
  }
  const parameters = new Map<string, string>();
  for (const m of call.matchAll(/-(\w+)\s+(?:'((?:[^']|'')*)'|"([^"]*)"|([^\s'"]+))/g)) {
    parameters.set(m[1], m[2] !== undefined ? m[2].replaceAll("''", "'") : (m[3] ?? m[4] ?? ''));
  }
  let labels: Record<string, string> = {};
  let taints: NodeBootstrap['taints'] = [];
  let maxPods: number | undefined;
  // kubelet flags are split on spaces outside double quotes, as the service's command line is.
  for (const flag of (parameters.get('KubeletExtraArgs') ?? '').match(/(?:[^\s"]|"[^"]*")+/g) ?? []) {
    const [name, ...rest] = flag.split('=');
    const value = rest.join('=').replace(/^"|"$/g, '');
    if (name === '--node-labels') labels = { ...labels, ...parseLabelList(value) };
    else if (name === '--register-with-taints') taints = value === '' ? [] : value.split(',').map(parseTaint);
    else if (name === '--max-pods') maxPods = Number(value);
  }
  return {
    clusterName: parameters.get('EKSClusterName') ?? '',
    labels,
    taints,
    ...(maxPods !== undefined && Number.isInteger(maxPods) ? { maxPods } : {}),
  };
}

/** `key=value:Effect` or `key:Effect`, as kubelet's --register-with-taints reads them. */
function parseTaint(text: string): NodeBootstrap['taints'][number] {
  const colon = text.lastIndexOf(':');
  const [key, value] = text.slice(0, colon).split('=');
  return { key, effect: text.slice(colon + 1), ...(value ? { value } : {}) };
}

function parseLabelList(list: string): Record<string, string> {
  return Object.fromEntries(
    list
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

function fromBottlerocket(root: TomlTable): NodeBootstrap {
  const settings = root.settings;
  const kubernetes = isTomlTable(settings) ? settings.kubernetes : undefined;
  if (!isTomlTable(kubernetes)) throw new Error('no [settings.kubernetes] table');
  const labelTable = kubernetes['node-labels'];
  const labels = isTomlTable(labelTable)
    ? Object.fromEntries(Object.entries(labelTable).map(([k, v]) => [k, String(v)]))
    : {};
  const taintTable = kubernetes['node-taints'];
  const taints = isTomlTable(taintTable)
    ? Object.entries(taintTable).flatMap(([key, values]) =>
        (Array.isArray(values) ? values : [values]).map((entry) => {
          const [value, effect] = String(entry).split(':');
          return { key, effect: effect ?? '', ...(value ? { value } : {}) };
        }),
      )
    : [];
  const maxPods = kubernetes['max-pods'];
  return {
    clusterName: String(kubernetes['cluster-name'] ?? ''),
    labels,
    taints,
    ...(typeof maxPods === 'number' ? { maxPods } : {}),
    dataDevice: '/dev/xvdb',
  };
}
