import type { BootstrapOptions } from './bootstrap-options';
import { customUserDataParts } from './custom-parts';
import { kubeletExtraArgs } from './kubelet-extra-args';
import { CONTENT_TYPE_SHELL_SCRIPT, mimePart, serializeMimeArchive } from './mime-archive';

/**
 * AL2 user data for `/etc/eks/bootstrap.sh` (aws/karpenter-provider-aws
 * `bootstrap/eksbootstrap.go`): a MIME archive with the EC2NodeClass's parts first (a bare
 * userData is one shell script part) and podlift's bootstrap script last.
 *
 * @returns the archive as text (not yet base64)
 * @throws ValidationError naming the EC2NodeClass and spec.userData when its MIME is invalid
 */
export function eksBootstrapUserData(options: BootstrapOptions): string {
  return serializeMimeArchive([
    ...customUserDataParts(options, (userData) => mimePart(CONTENT_TYPE_SHELL_SCRIPT, userData)),
    mimePart(CONTENT_TYPE_SHELL_SCRIPT, bootstrapScript(options)),
  ]);
}

/** Single-quoted for bash: `'it'\''s'`. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function bootstrapScript(options: BootstrapOptions): string {
  const { cluster, kubelet } = options;
  const lines = [
    '#!/bin/bash -xe',
    'exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1',
    // bootstrap.sh does not accept `--flag=value`, so every flag takes its value separately.
    `/etc/eks/bootstrap.sh ${shellQuote(cluster.name)} --apiserver-endpoint ${shellQuote(cluster.endpoint)} --b64-cluster-ca ${shellQuote(cluster.certificateAuthority)}`,
  ];
  const dns = kubelet.clusterDNS?.[0];
  if (dns?.includes(':')) lines.push('--ip-family ipv6');
  if (dns !== undefined) lines.push(`--dns-cluster-ip ${shellQuote(dns)}`);
  if (kubelet.maxPods !== undefined) lines.push('--use-max-pods false');
  const args = kubeletExtraArgs(options);
  if (args.length > 0) lines.push(`--kubelet-extra-args ${shellQuote(args.join(' '))}`);
  if (options.instanceStorePolicy === 'RAID0') lines.push('--local-disks raid0');
  return `${lines.slice(0, 2).join('\n')}\n${lines.slice(2).join(' \\\n')}`;
}
