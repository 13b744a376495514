/** The fake Kubernetes API server and what tests need to drive and inspect it. */
export type { FakeKubeAuthorization } from './authorization';
export {
  budgetSelects,
  computeBudget,
  type DisruptionBudget,
  expectedPodsAnnotation,
  isPodHealthy,
} from './disruption';
export { evictionBlockedMessage } from './eviction';
export { cloneObject, formatKubeTime, type KubeObject, type ObjectMeta, toKubeObject } from './kube-object';
export { continueExpiredMessage } from './list-snapshots';
export { patchContentTypes } from './patch';
export {
  type PolicyRule,
  RbacPolicy,
  type RequestAttributes,
  ruleAllows,
  SYSTEM_AUTHENTICATED,
  SYSTEM_MASTERS,
  type UserInfo,
} from './rbac';
export { defaultResources, type KnownResource, qualifiedName, type ResourceType } from './resources';
export type { KubeVerb } from './routes';
export {
  FakeKubeApiServer,
  type FakeKubeApiServerOptions,
  type FaultOptions,
  type RecordedRequest,
  startFakeKubeApiServer,
} from './server';
export { isKubeApiError, KubeApiError, type StatusBody, type StatusCause } from './status';
export {
  type DeletePreconditions,
  KubeStore,
  type KubeStoreOptions,
  type ListOptions,
  type ListResult,
  type ResourceRef,
  type StoredEvent,
  type WriteOptions,
} from './store';
