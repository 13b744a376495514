/**
 * Resource vectors. Every value is an exact integer in the resource's canonical unit:
 * `cpu` in millicores, `memory` and `ephemeral-storage` in bytes, `pods` and extended
 * resources (`nvidia.com/gpu`, `aws.amazon.com/neuron`, ...) in units. Absent means zero.
 */
export type Resources = Readonly<Record<string, number>>;

/** Well-known resource names. */
export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';
export const NVIDIA_GPU = 'nvidia.com/gpu';
export const AMD_GPU = 'amd.com/gpu';
export const NEURON = 'aws.amazon.com/neuron';
export const NEURON_CORE = 'aws.amazon.com/neuroncore';
export const POD_ENI = 'vpc.amazonaws.com/pod-eni';
export const EFA = 'vpc.amazonaws.com/efa';
