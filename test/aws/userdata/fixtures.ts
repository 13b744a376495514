import {
  type BootstrapInput,
  type BootstrapOptions,
  bootstrapOptions,
} from '../../../shared/aws/userdata/bootstrap-options';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import { clusterInfo } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';

/** Bootstrap options for the default NodeClaim on `demo`, spot, 29 pods, with overrides. */
export function bootstrap(
  overrides: Partial<Omit<BootstrapInput, 'nodeClass'>> & { readonly nodeClass?: EC2NodeClass } = {},
): BootstrapOptions {
  return bootstrapOptions({
    cluster: clusterInfo,
    nodeClass: nodeClass(),
    nodeClaim: nodeClaim(),
    nodePoolName: 'default',
    capacityType: 'spot',
    maxPods: 29,
    ...overrides,
  });
}

/** Base64 user data → text. */
export function decode(base64: string | undefined): string {
  if (base64 === undefined) throw new Error('no user data');
  return Buffer.from(base64, 'base64').toString('utf8');
}
