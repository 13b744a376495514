import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { Simulation } from '../world/simulation';
import { formatDuration, type Step } from './schema';

/**
 * The timeline steps that break the world behind podlift's back: kubelets that die or never
 * register, finalizers nobody removes, instances launched or terminated outside podlift,
 * impaired status checks, do-not-disrupt pods, volume attachments, NodeClaims as Karpenter
 * left them (adopted), and a kube-scheduler that is down. Each throws an Error whose
 * message starts with the field it could not carry out (`kubeletDies.node: no Node ip-…`); the
 * player prefixes the step.
 */

// biome-ignore lint/suspicious/noExplicitAny: steps read the API server's untyped JSON
type Json = Record<string, any>;

/** A node a step names: by Node, NodeClaim, instance id, or the oldest running instance with a node. */
export interface NodeTarget {
  readonly node?: string;
  readonly nodeClaim?: string;
  readonly instanceId?: string;
  readonly instance?: 'any';
}

/** The instance behind `target`, or an Error naming the field that names nothing. */
export function targetInstance(sim: Simulation, target: NodeTarget, field: string): string {
  const store = sim.world.fakes.kube.store;
  const ec2 = sim.world.fakes.ec2;
  if (target.instanceId !== undefined) {
    if (!ec2.instance(target.instanceId))
      throw new Error(`${field}.instanceId: no instance ${target.instanceId}`);
    return target.instanceId;
  }
  if (target.node !== undefined) {
    const node = store.find('nodes', target.node) as Json | undefined;
    const id = String(node?.spec?.providerID ?? '')
      .split('/')
      .pop();
    if (!id) throw new Error(`${field}.node: no Node ${target.node}`);
    return id;
  }
  if (target.nodeClaim !== undefined) {
    const claim = store.find('nodeclaims.karpenter.sh', target.nodeClaim) as Json | undefined;
    const id = String(claim?.status?.providerID ?? '')
      .split('/')
      .pop();
    if (!id) throw new Error(`${field}.nodeClaim: no launched NodeClaim ${target.nodeClaim}`);
    return id;
  }
  const running = ec2
    .listInstances()
    .filter((i) => {
      const node = sim.kubelet.nodeOf(i.InstanceId ?? '');
      // A registered Node whose kubelet still runs (not one that never registered).
      return (
        i.State?.Name === 'running' &&
        node !== undefined &&
        !sim.kubelet.isDead(node) &&
        store.find('nodes', node)
      );
    })
    .sort((a, b) => (a.LaunchTime?.getTime() ?? 0) - (b.LaunchTime?.getTime() ?? 0));
  if (running.length === 0) throw new Error(`${field}.instance: no running instance with a live kubelet`);
  return running[0].InstanceId ?? '';
}

/** Carries out a fault step; returns false when `step` is none of these. */
export function applyFaultStep(sim: Simulation, step: Step): boolean {
  const store = sim.world.fakes.kube.store;
  const { ec2 } = sim.world.fakes;
  const nodeOf = (id: string) => sim.kubelet.nodeOf(id) ?? 'no node';
  if (step.kubeletDies) {
    const id = targetInstance(sim, step.kubeletDies, 'kubeletDies');
    sim.killKubelet(id);
    sim.decide('scenario', 'kubelet-dies', `the kubelet of ${nodeOf(id)} (${id}) dies`);
  } else if (step.neverRegisters) {
    const { instanceType, nodeClass } = step.neverRegisters;
    sim.kubelet.neverRegisters({
      ...(instanceType ? { instanceType } : {}),
      ...(nodeClass ? { nodeClass } : {}),
    });
    const what = instanceType ? `instance type ${instanceType}` : `EC2NodeClass ${nodeClass}`;
    sim.decide('scenario', 'never-registers', `instances of ${what} boot but never register from now on`);
  } else if (step.stuckFinalizer) {
    const { pod, deployment, namespace, finalizer } = step.stuckFinalizer;
    const target = pod
      ? store.find('pods', pod, namespace)
      : sim.workloads.podsOf(namespace, deployment ?? '')[0];
    if (!target)
      throw new Error(
        pod
          ? `stuckFinalizer.pod: no pod ${namespace}/${pod}`
          : `stuckFinalizer.deployment: no live pod of ${namespace}/${deployment}`,
      );
    const finalizers = [...(target.metadata.finalizers ?? []), finalizer];
    store.update('pods', { ...target, metadata: { ...target.metadata, finalizers } });
    sim.decide(
      'scenario',
      'stuck-finalizer',
      `pod ${namespace}/${target.metadata.name} gets finalizer ${finalizer}, which nobody removes`,
    );
  } else if (step.leakInstance) {
    const { instanceType, zone, taggedForCluster, name } = step.leakInstance;
    const cluster = sim.world.config.clusterName;
    const tags = [
      { Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' },
      ...(taggedForCluster ? [{ Key: 'karpenter.sh/nodepool', Value: 'default' }] : []),
      ...(name ? [{ Key: 'Name', Value: name }] : []),
    ];
    let id: string;
    try {
      id = ec2.launchOutside({ instanceType, ...(zone ? { availabilityZone: zone } : {}), tags });
    } catch (error) {
      throw new Error(`leakInstance.instanceType: ${(error as Error).message}`);
    }
    sim.decide(
      'scenario',
      'leak-instance',
      `instance ${id} (${instanceType}) launched behind podlift's back, ${taggedForCluster ? 'tagged for the cluster' : 'with the cluster tag only (not podlift’s)'}`,
    );
  } else if (step.terminateInstance) {
    const id = targetInstance(sim, step.terminateInstance, 'terminateInstance');
    ec2.terminateInstances({ InstanceIds: [id] });
    sim.decide(
      'scenario',
      'terminate-instance',
      `instance ${id} (${nodeOf(id)}) terminated behind podlift's back`,
    );
  } else if (step.impairInstance) {
    const id = targetInstance(sim, step.impairInstance, 'impairInstance');
    const { instanceStatus, systemStatus } = step.impairInstance;
    ec2.setInstanceStatus(id, { instance: instanceStatus, system: systemStatus });
    sim.decide(
      'scenario',
      'impair-instance',
      `instance ${id} (${nodeOf(id)}) status checks: instance ${instanceStatus}, system ${systemStatus}`,
    );
  } else if (step.doNotDisrupt) {
    const { deployment, namespace, value } = step.doNotDisrupt;
    let count: number;
    try {
      count = sim.workloads.annotatePods(namespace, deployment, { 'karpenter.sh/do-not-disrupt': value });
    } catch (error) {
      throw new Error(`doNotDisrupt.deployment: ${(error as Error).message}`);
    }
    sim.decide(
      'scenario',
      'do-not-disrupt',
      `Deployment ${deployment}: ${count} pod(s) and its template annotated karpenter.sh/do-not-disrupt=${value}`,
    );
  } else if (step.volumeAttachment) {
    const { count, detachAfter } = step.volumeAttachment;
    const id = targetInstance(sim, step.volumeAttachment, 'volumeAttachment');
    const node = sim.kubelet.nodeOf(id);
    if (!node || !store.find('nodes', node)) throw new Error(`volumeAttachment: instance ${id} has no Node`);
    const names = sim.attachDetach.attach(node, count, detachAfter);
    sim.decide(
      'scenario',
      'volume-attachment',
      `${names.length} volume(s) attached to ${node}${detachAfter === undefined ? ', never detached' : `, detached ${detachAfter / 1000}s after its pods go`}`,
    );
  } else if (step.adoptFromKarpenter) {
    const { nodePool } = step.adoptFromKarpenter;
    const claims = (store.list('nodeclaims.karpenter.sh').items as Json[]).filter(
      (c) => c.metadata.labels?.['karpenter.sh/nodepool'] === nodePool && !c.metadata.deletionTimestamp,
    );
    if (claims.length === 0)
      throw new Error(`adoptFromKarpenter.nodePool: no NodeClaims of NodePool ${nodePool}`);
    for (const claim of claims) {
      const { [ANNOTATIONS.hourlyPrice]: _price, ...annotations } = claim.metadata.annotations ?? {};
      store.update('nodeclaims.karpenter.sh', {
        ...claim,
        metadata: { ...claim.metadata, annotations: { ...annotations, ...KARPENTER_HASHES } },
      });
    }
    sim.decide(
      'scenario',
      'adopt-from-karpenter',
      `${claims.length} NodeClaim(s) of NodePool ${nodePool} as Karpenter left them: no price, hash versions v3/v4`,
    );
  } else if (step.kubeSchedulerDown) {
    const until = sim.world.time.now() + step.kubeSchedulerDown.for;
    sim.scheduler.down(until);
    sim.decide(
      'scenario',
      'kube-scheduler-down',
      `kube-scheduler is down for ${formatDuration(step.kubeSchedulerDown.for)}: no pod is bound or marked Unschedulable`,
    );
  } else return false;
  return true;
}

/** Hashes and hash versions as Karpenter v1 writes them on a NodeClaim (not podlift's). */
const KARPENTER_HASHES = {
  [ANNOTATIONS.nodePoolHash]: '6519473727542839532',
  [ANNOTATIONS.nodePoolHashVersion]: 'v3',
  [ANNOTATIONS.nodeClassHash]: '15287305281357399934',
  [ANNOTATIONS.nodeClassHashVersion]: 'v4',
};
