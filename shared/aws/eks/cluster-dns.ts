import { isIPv4, isIPv6 } from 'node:net';
import { ValidationError } from '../../core/model/errors';

/**
 * The cluster DNS address (the kube-dns Service's ClusterIP) is the 10th address of the
 * service CIDR: the network address + 10. That is the address EKS gives its CoreDNS add-on
 * and kubeadm gives kube-dns. EKS's own node bootstrap (nodeadm `GetClusterDns`) builds it as
 * text instead, `<a.b.c>.10` for IPv4 and `<prefix>a` for IPv6; for every service CIDR EKS
 * accepts (IPv4 /12–/24, IPv6 /108 from fd00::/8) both give the same address, and the
 * arithmetic form also holds for other clusters (kOps' 100.64.0.0/13 → 100.64.0.10).
 */
const DNS_OFFSET = 10n;

/** The IP family of a CIDR such as `10.100.0.0/16` or `fd30:1c53:5f8a::/108`. */
export function ipFamilyOfCidr(cidr: string): 'ipv4' | 'ipv6' {
  return parseCidr(cidr).family;
}

/**
 * The 10th address of `serviceCidr` (network address + 10), e.g. `10.100.0.0/16` →
 * `10.100.0.10`, `fd30:1c53:5f8a::/108` → `fd30:1c53:5f8a::a`.
 * @throws ValidationError when `serviceCidr` is not a CIDR or has fewer than 11 addresses.
 */
export function clusterDnsAddress(serviceCidr: string): string {
  const { family, address, prefixLength } = parseCidr(serviceCidr);
  const bits = family === 'ipv4' ? 32n : 128n;
  const hostBits = bits - BigInt(prefixLength);
  if (1n << hostBits <= DNS_OFFSET) {
    throw invalidCidr(serviceCidr, `has ${1n << hostBits} addresses, too few for the cluster DNS (the 10th)`);
  }
  const network = (address >> hostBits) << hostBits;
  return formatAddress(family, network + DNS_OFFSET);
}

interface ParsedCidr {
  readonly family: 'ipv4' | 'ipv6';
  readonly address: bigint;
  readonly prefixLength: number;
}

function parseCidr(cidr: string): ParsedCidr {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  const ip = match?.[1] ?? '';
  const prefixLength = Number(match?.[2]);
  if (isIPv4(ip) && prefixLength <= 32) {
    const address = ip.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(octet), 0n);
    return { family: 'ipv4', address, prefixLength };
  }
  if (isIPv6(ip) && !ip.includes('.') && prefixLength <= 128) {
    return { family: 'ipv6', address: parseIpv6(ip), prefixLength };
  }
  throw invalidCidr(cidr, 'not an IPv4 or IPv6 CIDR such as 10.100.0.0/16 or fd30:1c53:5f8a::/108');
}

function parseIpv6(ip: string): bigint {
  const [head = '', tail] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((sum, group) => (sum << 16n) + BigInt(`0x${group}`), 0n);
}

function formatAddress(family: 'ipv4' | 'ipv6', address: bigint): string {
  if (family === 'ipv4') {
    return [24n, 16n, 8n, 0n].map((shift) => String((address >> shift) & 0xffn)).join('.');
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) =>
    ((address >> shift) & 0xffffn).toString(16),
  );
  // The WHATWG URL parser prints IPv6 hosts in RFC 5952 form (longest zero run as `::`).
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

function invalidCidr(cidr: string, message: string): ValidationError {
  return new ValidationError([{ field: 'serviceCidr', value: cidr, message }]);
}
