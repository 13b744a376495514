import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { InstanceTypeInfo } from './instance-type';

/**
 * Which instance types can launch with an EC2NodeClass's launch settings, as Karpenter's
 * compatibility checks decide (aws/karpenter-provider-aws
 * pkg/providers/instancetype/compatibility/compatibility.go IsCompatibleWithNodeClass), for the
 * settings podlift's catalog has the data for: connection tracking needs a Nitro type
 * (connectionTrackingCompatibility), efa-only interfaces need that many EFA interfaces, and
 * interfaces on the default card need that many device slots (networkInterfaceCompatibility).
 * Other network cards and nested virtualization are not known to the catalog and not checked.
 */

/** The node class settings the checks read. */
export type CompatibilityNodeClass = Partial<Pick<EC2NodeClass, 'connectionTracking' | 'networkInterfaces'>>;

/** Whether `info` can launch with the node class's launch settings. */
export function compatibleWithNodeClass(info: InstanceTypeInfo, nodeClass: CompatibilityNodeClass): boolean {
  if (nodeClass.connectionTracking !== undefined && info.hypervisor !== 'nitro') return false;
  const interfaces = nodeClass.networkInterfaces ?? [];
  if (interfaces.length === 0) return true;
  const efaOnly = interfaces.filter((n) => n.interfaceType === 'efa-only').length;
  if (efaOnly > info.efaCount) return false;
  const defaultCardSlots = info.eni?.defaultCardMaxInterfaces;
  return interfaces.every(
    (n) => n.networkCardIndex !== 0 || defaultCardSlots === undefined || n.deviceIndex < defaultCardSlots,
  );
}
