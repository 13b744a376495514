import { CPU, MEMORY, PODS, type Resources } from '../model/resources';

/**
 * The planned nodes' free room, indexed by the order they were opened, so that first-fit can
 * jump to the first node with room for a request instead of walking every node planned so far.
 *
 * Karpenter's scheduler tries every in-flight NodeClaim in turn for each pod
 * (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go, `add`:
 * `for _, nodeClaim := range s.newNodeClaims`); with thousands of planned nodes and thousands
 * of pod groups that walk was most of the placement time. A segment tree keeps, per tracked
 * resource, the largest free room in each range of nodes: a range where some requested
 * resource exceeds that maximum holds no node with room and is skipped whole. The answer is
 * the same node the walk would have reached first (the tree only skips nodes that cannot hold
 * the request), so plans do not change.
 */
export class RoomIndex {
  /** Leaves start here; a power of two. */
  private size = 0;
  private count = 0;
  /**
   * Per tracked resource, the tree: node `n` has children `2n` and `2n + 1`, leaf `i` is
   * `size + i`, and a node holds the largest free room among its leaves.
   */
  private cpu = new Float64Array(0);
  private memory = new Float64Array(0);
  private pods = new Float64Array(0);

  /** Number of nodes indexed. */
  get length(): number {
    return this.count;
  }

  /** Indexes the next node (index `length`) with this free room; absent resources count as 0. */
  push(free: Resources): void {
    if (this.count === this.size) this.grow();
    this.set(this.count++, free);
  }

  /** Updates node `i`'s free room (after pods were added to it). */
  set(i: number, free: Resources): void {
    setLeaf(this.cpu, this.size + i, free[CPU] ?? 0);
    setLeaf(this.memory, this.size + i, free[MEMORY] ?? 0);
    setLeaf(this.pods, this.size + i, free[PODS] ?? 0);
  }

  /**
   * The first node at index `from` or later whose free room holds `request` in every tracked
   * resource, or −1. A necessary condition only: the caller still checks the node itself.
   */
  next(from: number, request: Resources): number {
    if (from >= this.count) return -1;
    const { cpu, memory, pods, size } = this;
    const c = needOf(request[CPU]);
    const m = needOf(request[MEMORY]);
    const p = needOf(request[PODS]);
    let n = size + from;
    if (cpu[n] >= c && memory[n] >= m && pods[n] >= p) return from;
    for (;;) {
      // Up to the next subtree to the right of `n`...
      while (n & 1) n >>= 1;
      if (n === 0) return -1;
      n++;
      if (!(cpu[n] >= c && memory[n] >= m && pods[n] >= p)) continue;
      // ...and down to its first leaf with room. The maxima are per resource, so a subtree can
      // pass with no single leaf that does: then the climb goes on from where the descent stopped.
      while (n < size) {
        const l = 2 * n;
        if (cpu[l] >= c && memory[l] >= m && pods[l] >= p) n = l;
        else if (cpu[l + 1] >= c && memory[l + 1] >= m && pods[l + 1] >= p) n = l + 1;
        else break;
      }
      if (n >= size) return n - size < this.count ? n - size : -1;
    }
  }

  /**
   * An independent copy: a scheduling run that starts from room indexed once for many runs
   * (existing-capacity.ts) changes its copy, never the shared original.
   */
  clone(): RoomIndex {
    const copy = new RoomIndex();
    copy.size = this.size;
    copy.count = this.count;
    copy.cpu = this.cpu.slice();
    copy.memory = this.memory.slice();
    copy.pods = this.pods.slice();
    return copy;
  }

  /** Doubles the leaf capacity, rebuilding the inner nodes. */
  private grow(): void {
    const size = Math.max(64, this.size * 2);
    const regrow = (old: Float64Array) => {
      const tree = new Float64Array(2 * size).fill(Number.NEGATIVE_INFINITY);
      tree.set(old.subarray(this.size, this.size + this.count), size);
      for (let n = size - 1; n >= 1; n--) tree[n] = Math.max(tree[2 * n], tree[2 * n + 1]);
      return tree;
    };
    this.cpu = regrow(this.cpu);
    this.memory = regrow(this.memory);
    this.pods = regrow(this.pods);
    this.size = size;
  }
}

/** What a request asks of a resource as a bound on free room: −∞ when it asks for none. */
function needOf(v: number | undefined): number {
  return v !== undefined && v > 0 ? v : Number.NEGATIVE_INFINITY;
}

/** Sets leaf `n` of a max tree and repairs its ancestors. */
function setLeaf(tree: Float64Array, leaf: number, value: number): void {
  tree[leaf] = value;
  for (let n = leaf >> 1; n >= 1; n >>= 1) {
    const max = tree[2 * n] > tree[2 * n + 1] ? tree[2 * n] : tree[2 * n + 1];
    if (tree[n] === max) break;
    tree[n] = max;
  }
}
