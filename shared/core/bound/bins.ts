/** What the configuration LP (config-lp.ts) packs, and into what. */

/** One class of identical pods: requests and how many. */
export interface PodClass {
  /** Millicores. */
  readonly cpu: number;
  /** Bytes. */
  readonly memory: number;
  readonly count: number;
  /**
   * Pods of all classes with the same `apart` key never share a node (required hostname
   * anti-affinity among them): a node holds at most one of them. Every real plan obeys it, so
   * the bound stays a bound.
   */
  readonly apart?: string;
}

/** One instance type as the bound sees it: room left for pods and one price. */
export interface BinType {
  readonly name: string;
  /** Millicores available to pods (allocatable minus DaemonSet overhead). */
  readonly cpu: number;
  /** Bytes available to pods. */
  readonly memory: number;
  /** Pods it still takes (max pods minus DaemonSet pods). */
  readonly pods: number;
  /** USD per hour. */
  readonly price: number;
}
