import type { BootstrapOptions } from './bootstrap-options';
import { kubeletExtraArgs } from './kubelet-extra-args';

/** Where the EKS optimized Windows AMIs keep their bootstrap script. */
export const EKS_WINDOWS_BOOTSTRAP_SCRIPT = '$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1';

/**
 * Windows2019/2022/2025 user data (aws/karpenter-provider-aws
 * `pkg/providers/amifamily/bootstrap/windows.go` Windows.Script): one `<powershell>` block that
 * runs the EC2NodeClass's userData (PowerShell commands, without tags) first, then the AMI's
 * `Start-EKSBootstrap.ps1` with the cluster name, API server endpoint, CA, the kubelet flags
 * (labels, taints, max pods, reserved resources, eviction thresholds) and the first cluster DNS
 * address. Karpenter passes no `-ServiceCIDR` either.
 *
 * @returns the script as text (not yet base64)
 */
export function windowsUserData(options: BootstrapOptions): string {
  const { cluster, kubelet } = options;
  const lines = ['<powershell>'];
  const custom = options.customUserData ?? '';
  if (custom !== '') lines.push(custom);
  lines.push(`[string]$EKSBootstrapScriptFile = "${EKS_WINDOWS_BOOTSTRAP_SCRIPT}"`);
  let call = `& $EKSBootstrapScriptFile -EKSClusterName ${quote(cluster.name)} -APIServerEndpoint ${quote(cluster.endpoint)}`;
  // Without the CA the script asks EKS for it (Get-EKSCluster), as without -APIServerEndpoint.
  if (cluster.certificateAuthority !== '') call += ` -Base64ClusterCA ${quote(cluster.certificateAuthority)}`;
  const args = kubeletExtraArgs(options);
  if (args.length > 0) call += ` -KubeletExtraArgs ${quote(args.join(' '))}`;
  const dns = kubelet.clusterDNS?.[0];
  if (dns !== undefined) call += ` -DNSClusterIP ${quote(dns)}`;
  lines.push(call);
  return `${lines.join('\n')}\n</powershell>`;
}

/**
 * A PowerShell single-quoted string: `'it''s'`. Karpenter writes the values between quotes as
 * they are; none of the values it writes can hold a quote, so both agree on every real input.
 */
function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
