import { describe, expect, it } from 'vitest';
import { clusterDnsAddress, ipFamilyOfCidr } from '../../../shared/aws/eks/cluster-dns';
import { ValidationError } from '../../../shared/core/model/errors';

describe('clusterDnsAddress', () => {
  it.each([
    ['10.100.0.0/16', '10.100.0.10'], // EKS default
    ['172.20.0.0/16', '172.20.0.10'], // EKS default when the VPC uses 10.0.0.0/8
    ['100.64.0.0/13', '100.64.0.10'], // kOps default
    ['192.168.240.0/24', '192.168.240.10'],
    ['10.100.7.9/16', '10.100.0.10'], // host bits are ignored: the network address + 10
    ['fd30:1c53:5f8a::/108', 'fd30:1c53:5f8a::a'], // EKS IPv6 (nodeadm: "<prefix>a")
    ['fd00:ec2:0:0:0:0:10:0/112', 'fd00:ec2::10:a'],
    ['2001:DB8::/120', '2001:db8::a'],
  ])('is the 10th address of %s: %s', (cidr, dns) => {
    expect(clusterDnsAddress(cidr)).toBe(dns);
  });

  it('tells the IP family of a CIDR', () => {
    expect(ipFamilyOfCidr('10.100.0.0/16')).toBe('ipv4');
    expect(ipFamilyOfCidr('fd30:1c53:5f8a::/108')).toBe('ipv6');
  });

  it.each([
    ['10.100.0.0', 'not an IPv4 or IPv6 CIDR'],
    ['10.100.0.0/33', 'not an IPv4 or IPv6 CIDR'],
    ['300.1.0.0/16', 'not an IPv4 or IPv6 CIDR'],
    ['::ffff:10.0.0.0/120', 'not an IPv4 or IPv6 CIDR'],
    ['10.0.0.0/29', 'has 8 addresses, too few'],
  ])('refuses %s with a ValidationError naming the value', (cidr, message) => {
    const error = (() => {
      try {
        return clusterDnsAddress(cidr);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain(`(got "${cidr}")`);
  });
});
