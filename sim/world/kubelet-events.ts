import type { NodeLifecycleEvent } from './node-lifecycle';

/** Something the world's nodes did, for the simulator's log. */
export interface KubeletEvent {
  readonly kind:
    | 'registered'
    | 'ready'
    | 'startup-taints-lifted'
    | 'instance-gone'
    | 'pod-running'
    | 'pod-terminated'
    | 'kubelet-died'
    | 'never-registers'
    | NodeLifecycleEvent['kind'];
  readonly node: string;
  readonly instanceId: string;
  readonly detail?: string;
}

/** The simulator's log line for a kubelet or node lifecycle event. */
export function kubeletEventMessage(event: KubeletEvent): string {
  switch (event.kind) {
    case 'registered':
      return `node ${event.node} registered (${event.instanceId})`;
    case 'ready':
      return `node ${event.node} is Ready`;
    case 'startup-taints-lifted':
      return `startup taints lifted on ${event.node}`;
    case 'instance-gone':
      return `instance ${event.instanceId} gone: the kubelet of node ${event.node} stopped`;
    case 'kubelet-died':
      return `the kubelet of node ${event.node} (${event.instanceId}) died: no heartbeats, no pod confirmed`;
    case 'never-registers':
      return `instance ${event.instanceId} booted but its kubelet never registers: ${event.detail}`;
    case 'node-unreachable':
      return `node ${event.node} is Unknown (no heartbeat for the node-monitor grace period): tainted unreachable, pods not Ready`;
    case 'pods-evicted-unreachable':
      return `taint eviction deleted ${event.detail} pod(s) of unreachable node ${event.node}`;
    case 'node-deleted':
      return `cloud node lifecycle deleted node ${event.node}: its instance is terminated`;
    case 'pod-collected':
      return `pod garbage collector deleted ${event.detail}: its node ${event.node} no longer exists`;
    default:
      return `${event.kind} ${event.detail ?? ''} on ${event.node}`;
  }
}
