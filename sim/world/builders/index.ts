/**
 * Builders for everything a test, a benchmark or the simulator puts into a world: podlift's
 * core objects (`pod`, `nodePool`, `nodeClass`, `nodeClaim`, `stateNode`) and the Kubernetes
 * manifests the API server holds (`podManifest`, `nodeManifest`, `nodePoolManifest`, …). Each
 * is a noun named for the object kind, takes one options object, and fills in Karpenter's
 * defaults so a caller only spells out what it is about.
 */
export {
  type Ec2NodeClassManifestOptions,
  ec2NodeClassManifest,
  type NodeClaimManifestOptions,
  type NodePoolManifestOptions,
  nodeClaimManifest,
  nodePoolManifest,
} from './karpenter-manifests';
export { type NodeManifestOptions, nodeManifest } from './node-manifests';
export { type NodeClaimOptions, nodeClaim } from './nodeclaims';
export { type NodeClassOptions, nodeClass } from './nodeclasses';
export { type NodePoolOptions, nodePool } from './nodepools';
export { type PodDisruptionBudgetManifestOptions, podDisruptionBudgetManifest } from './pdb-manifests';
export {
  type ContainerManifestOptions,
  containerManifest,
  type PodManifestOptions,
  podManifest,
  unschedulableCondition,
} from './pod-manifests';
export { type PodOptions, pod, pods } from './pods';
export { type QuantityInput, resources } from './quantities';
export { type StateNodeOptions, stateNode } from './state-nodes';
