/**
 * Addresses this invocation's launches are expected to take, per subnet, so NodeClaims launched
 * one after another (or at once) spread over a zone's subnets instead of all picking the one
 * whose DescribeSubnets count is already stale (Karpenter's `inflightIPs`,
 * pkg/providers/subnet/subnet.go). Kept by the launcher, one per invocation: the next
 * invocation reads fresh counts from the EC2NodeClass status.
 */
export class InflightAddresses {
  private readonly used = new Map<string, number>();

  /** Addresses promised per subnet. */
  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.used);
  }

  /** Promises `count` addresses of a subnet to a launch about to be made (`ZonalSubnetsForLaunch`). */
  reserve(subnetId: string, count: number): void {
    this.used.set(subnetId, (this.used.get(subnetId) ?? 0) + count);
  }

  /** Gives back what a launch did not take: the fleet used another subnet, or failed (`UpdateInflightIPs`). */
  release(subnetId: string, count: number): void {
    const left = (this.used.get(subnetId) ?? 0) - count;
    if (left > 0) this.used.set(subnetId, left);
    else this.used.delete(subnetId);
  }

  /** Forgets a subnet EC2 said is full: its mark keeps it out now (`UpdateICEdSubnet`). */
  forget(subnetId: string): void {
    this.used.delete(subnetId);
  }
}
