import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { KubeletConfiguration } from '../../core/model/ec2nodeclass';
import { type BootstrapOptions, nodeLabelsFlag } from './bootstrap-options';
import { customUserDataParts } from './custom-parts';
import {
  CONTENT_TYPE_CLOUD_CONFIG,
  CONTENT_TYPE_NODE_CONFIG,
  CONTENT_TYPE_SHELL_SCRIPT,
  type MimePart,
  mimePart,
  serializeMimeArchive,
} from './mime-archive';

/** First line of the NodeConfig podlift generates, so a reader of the user data knows whose it is. */
export const GENERATED_NODE_CONFIG_HEADER = '# podlift generated NodeConfig';

/**
 * AL2023 user data for nodeadm (aws/karpenter-provider-aws `bootstrap/nodeadm.go`): a MIME
 * archive with the EC2NodeClass's own parts first and podlift's NodeConfig last, so nodeadm,
 * which merges NodeConfigs in order, lets podlift's cluster, kubelet and label settings win.
 *
 * The EC2NodeClass's userData may be a MIME archive (its parts are kept as they are), a bare
 * NodeConfig or other YAML mapping (one `application/node.eks.aws` part; `#cloud-config`
 * documents become a `text/cloud-config` part), or anything else (a shell script part).
 *
 * @returns the archive as text (not yet base64)
 * @throws ValidationError naming the EC2NodeClass and spec.userData when its MIME is invalid
 */
export function nodeadmUserData(options: BootstrapOptions): string {
  return serializeMimeArchive([
    ...customUserDataParts(options, barePart),
    mimePart(CONTENT_TYPE_NODE_CONFIG, nodeConfigYaml(options)),
  ]);
}

/** How nodeadm's user data wraps a userData that is not MIME. */
function barePart(userData: string): MimePart {
  if (/^#cloud-config\b/.test(userData.trimStart())) return mimePart(CONTENT_TYPE_CLOUD_CONFIG, userData);
  return mimePart(isYamlMapping(userData) ? CONTENT_TYPE_NODE_CONFIG : CONTENT_TYPE_SHELL_SCRIPT, userData);
}

/** Karpenter's test: user data that parses as a YAML mapping is a NodeConfig, anything else a script. */
function isYamlMapping(text: string): boolean {
  try {
    const value: unknown = parseYaml(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The NodeConfig podlift generates, keys sorted as Karpenter's (sigs.k8s.io/yaml) output is. */
function nodeConfigYaml(options: BootstrapOptions): string {
  const { cluster } = options;
  const labels = nodeLabelsFlag(options.labels);
  const config = {
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    spec: {
      cluster: {
        apiServerEndpoint: cluster.endpoint,
        certificateAuthority: cluster.certificateAuthority,
        cidr: cluster.serviceCidr,
        name: cluster.name,
      },
      ...(options.instanceStorePolicy === 'RAID0'
        ? { instance: { localStorage: { strategy: 'RAID0' } } }
        : {}),
      kubelet: {
        config: {
          ...kubeletConfig(options.kubelet),
          registerWithTaints: options.taints.map((t) => ({
            effect: t.effect,
            key: t.key,
            ...(t.value ? { value: t.value } : {}),
          })),
        },
        ...(labels !== undefined ? { flags: [labels] } : {}),
      },
    },
  };
  return `${GENERATED_NODE_CONFIG_HEADER}\n${stringifyYaml(config, { sortMapEntries: true, lineWidth: 0 })}`;
}

/**
 * spec.kubelet as KubeletConfiguration fields (the EC2NodeClass uses kubelet's own field names):
 * every other kubelet setting it carries first, as written, then the typed ones, which nodeadm
 * renders into its inline kubelet config as Karpenter's generateInlineKubeletConfiguration does.
 */
function kubeletConfig(kubelet: KubeletConfiguration): Record<string, unknown> {
  const { passthrough, ...typed } = kubelet;
  const out: Record<string, unknown> = { ...passthrough };
  for (const [key, value] of Object.entries(typed)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
