import type { KubeObject } from '../fakes/kube';
import { applyMergePatch } from '../fakes/kube/patch';
import type { DecisionEntry, SimulationRecord } from '../report/record';
import { al2023Path, amiParameter } from '../world/aws/node-class-world';
import { Simulation } from '../world/simulation';
import type { Workload } from '../world/workloads';
import { checkExpectations } from './expectations';
import { applyFaultStep } from './fault-steps';
import { formatDuration, type Scenario, SEEDED_KINDS, type Step, WORKLOAD_KINDS } from './schema';

/** Options of {@link runScenario}. */
export interface RunOptions {
  /** Every decision as it happens (the log). */
  readonly onDecision?: (entry: DecisionEntry) => void;
  /** After each world step: virtual ms elapsed and the scenario's total. */
  readonly onProgress?: (elapsedMs: number, totalMs: number, sim: Simulation) => void;
  /** Play at this multiple of real time (1 = real time); as fast as possible when undefined. */
  readonly speed?: number;
}

/**
 * A timeline step the world cannot carry out (it names no instance that exists, an on-demand
 * instance for a rebalance recommendation, …); the message names the step and field.
 */
export class ScenarioStepError extends Error {
  override readonly name = 'ScenarioStepError';
}

/**
 * Plays a scenario: starts a {@link Simulation}, seeds its manifests (Deployments and Jobs go to
 * the workload controller, the rest to the API server), runs the timeline's steps at their
 * times, runs to the scenario's duration, and checks the expectations. Returns the record the
 * summary and the HTML report read.
 */
export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<SimulationRecord> {
  const sim = await Simulation.start({
    ...(scenario.instanceTypes ? { instanceTypes: scenario.instanceTypes } : {}),
    ...(scenario.environment || scenario.featureGates !== undefined
      ? {
          environment: {
            ...scenario.environment,
            ...(scenario.featureGates !== undefined ? { FEATURE_GATES: scenario.featureGates } : {}),
          },
        }
      : {}),
    ...(options.onDecision ? { onDecision: options.onDecision } : {}),
  });
  try {
    for (const r of scenario.capacityReservations) {
      sim.world.fakes.ec2.addCapacityReservation({
        id: r.id,
        instanceType: r.instanceType,
        availabilityZone: r.zone,
        totalInstanceCount: r.count,
        reservationType: r.type,
        ...(r.endsAt === undefined ? {} : { endDate: sim.world.time.now() + r.endsAt }),
        ...(r.tags === undefined ? {} : { tags: r.tags }),
      });
    }
    for (const [index, manifest] of scenario.manifests.entries()) {
      try {
        applyManifest(sim, manifest as unknown as KubeObject);
      } catch (error) {
        throw new ScenarioStepError(`manifests[${index}]: ${(error as Error).message}`, { cause: error });
      }
    }
    // Played in time order; errors name each step by its index in the file.
    const steps = scenario.timeline
      .map((step, index) => ({ step, index }))
      .sort((a, b) => a.step.at - b.step.at);
    const play = async (until: number) => {
      while (sim.elapsed < until) {
        // At a set speed the run advances a second at a time to keep pace with the wall clock.
        const chunk = options.speed === undefined ? until - sim.elapsed : Math.min(1000, until - sim.elapsed);
        const started = Date.now();
        await sim.advance(chunk, () => options.onProgress?.(sim.elapsed, scenario.duration, sim));
        if (options.speed !== undefined) {
          const wait = chunk / options.speed - (Date.now() - started);
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    };
    for (const { step, index } of steps) {
      await play(step.at);
      const where = `timeline[${index}] (at ${formatDuration(step.at)})`;
      try {
        applyStep(sim, step, where);
      } catch (error) {
        const message = (error as Error).message;
        throw new ScenarioStepError(message.startsWith('timeline[') ? message : `${where}.${message}`, {
          cause: error,
        });
      }
    }
    await play(scenario.duration);
    return {
      scenario: scenario.name,
      durationMs: sim.elapsed,
      samples: [...sim.samples],
      decisions: [...sim.decisions],
      timeToCapacityMs: [...sim.timeToCapacityMs],
      interruptionsSurvived: sim.interruptionsSurvived,
      expectations: checkExpectations(scenario.expect, sim),
    };
  } finally {
    await sim.close();
  }
}

/** Seeds one manifest; names it when its kind is not one the world knows. */
export function applyManifest(sim: Simulation, manifest: KubeObject): void {
  const kind = String(manifest.kind);
  if (kind === 'Deployment' || kind === 'Job') {
    sim.workloads.apply(workloadOf(manifest));
    return;
  }
  const resource = SEEDED_KINDS[kind];
  if (!resource)
    throw new Error(
      `manifest ${kind}/${manifest.metadata.name}: kind ${kind} is not one the simulator seeds (${[...Object.keys(SEEDED_KINDS), ...WORKLOAD_KINDS].join(', ')})`,
    );
  const store = sim.world.fakes.kube.store;
  const existing = store.find(resource, manifest.metadata.name ?? '', manifest.metadata.namespace);
  if (existing)
    store.update(resource, {
      ...manifest,
      metadata: { ...manifest.metadata, resourceVersion: existing.metadata.resourceVersion },
    });
  else store.seed(resource, manifest);
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML
type Json = Record<string, any>;

function workloadOf(manifest: KubeObject): Workload {
  const spec = (manifest.spec ?? {}) as Json;
  const pod = (spec.template?.spec ?? {}) as Json;
  const requests: Record<string, string> = {};
  for (const container of (pod.containers ?? []) as Json[])
    for (const [k, v] of Object.entries((container.resources?.requests ?? {}) as Json))
      requests[k] = String(v);
  const runFor = manifest.metadata.annotations?.['sim.podlift.dev/run-for'];
  return {
    kind: manifest.kind === 'Job' ? 'Job' : 'Deployment',
    name: manifest.metadata.name ?? '',
    namespace: manifest.metadata.namespace ?? 'default',
    replicas: manifest.kind === 'Job' ? (spec.completions ?? 1) : (spec.replicas ?? 1),
    ...(runFor ? { runForMs: Number.parseFloat(runFor) * (runFor.endsWith('m') ? 60_000 : 1000) } : {}),
    template: {
      ...(spec.template?.metadata?.labels ? { labels: spec.template.metadata.labels } : {}),
      ...(spec.template?.metadata?.annotations ? { annotations: spec.template.metadata.annotations } : {}),
      requests,
      ...(pod.nodeSelector ? { nodeSelector: pod.nodeSelector } : {}),
      ...(pod.tolerations ? { tolerations: pod.tolerations } : {}),
      ...(pod.affinity ? { affinity: pod.affinity } : {}),
      ...(pod.topologySpreadConstraints ? { topologySpreadConstraints: pod.topologySpreadConstraints } : {}),
      ...(pod.terminationGracePeriodSeconds !== undefined
        ? { terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds }
        : {}),
    },
  };
}

/** Carries out one timeline step; errors name the step (`where`) or start with the field. */
function applyStep(sim: Simulation, step: Step, where: string): void {
  const store = sim.world.fakes.kube.store;
  const { ec2, kube, ssm } = sim.world.fakes;
  if (applyFaultStep(sim, step)) return;
  if (step.log !== undefined) sim.decide('scenario', 'note', step.log);
  else if (step.scale) {
    try {
      sim.workloads.scale(step.scale.namespace, step.scale.deployment, step.scale.replicas);
    } catch (error) {
      throw new Error(`scale.deployment: ${(error as Error).message}`);
    }
    sim.decide('scenario', 'scale', `scale Deployment ${step.scale.deployment} to ${step.scale.replicas}`);
  } else if (step.apply) {
    try {
      applyManifest(sim, step.apply as unknown as KubeObject);
    } catch (error) {
      throw new Error(`apply: ${(error as Error).message}`);
    }
    sim.decide('scenario', 'apply', `apply ${step.apply.kind}/${step.apply.metadata.name}`);
  } else if (step.delete) {
    const { kind, name, namespace } = step.delete;
    const missing = () =>
      new Error(
        `delete.name: no ${kind} ${name}${kind === 'Pod' || kind === 'Deployment' || kind === 'PodDisruptionBudget' ? ` in namespace ${namespace}` : ''}`,
      );
    if (kind === 'Deployment') {
      if (!sim.workloads.list().some((w) => w.name === name && w.namespace === namespace)) throw missing();
      sim.workloads.scale(namespace, name, 0);
    } else {
      if (!store.find(SEEDED_KINDS[kind], name, namespace)) throw missing();
      store.delete(SEEDED_KINDS[kind], name, { namespace });
    }
    sim.decide('scenario', 'delete', `delete ${kind}/${name}`);
  } else if (step.patch) {
    const resource = SEEDED_KINDS[step.patch.kind];
    const current = store.find(resource, step.patch.name);
    if (!current) throw new Error(`patch.name: no ${step.patch.kind} ${step.patch.name}`);
    store.update(resource, applyMergePatch(current, step.patch.merge) as object);
    sim.decide(
      'scenario',
      'patch',
      `patch ${step.patch.kind}/${step.patch.name}: ${JSON.stringify(step.patch.merge)}`,
    );
  } else if (step.interrupt) {
    sim.interrupt(instanceOf(sim, step.interrupt, `${where}.interrupt`));
  } else if (step.rebalance) {
    const id = instanceOf(sim, step.rebalance, `${where}.rebalance`);
    try {
      sim.rebalance(id);
    } catch (error) {
      throw new Error(`${where}.rebalance: ${(error as Error).message}`);
    }
  } else if (step.scheduledChange) {
    const { in: inMs, eventTypeCode } = step.scheduledChange;
    sim.scheduledChange(
      [instanceOf(sim, step.scheduledChange, `${where}.scheduledChange`)],
      inMs,
      eventTypeCode,
    );
  } else if (step.unavailable) {
    const { instanceType, zone, capacityType, for: forMs } = step.unavailable;
    const selector = {
      ...(instanceType ? { instanceType } : {}),
      ...(zone ? { availabilityZone: zone } : {}),
      ...(capacityType ? { capacityType } : {}),
    };
    ec2.capacity.setCapacity(selector, 0);
    sim.invariants.waiveInterruptionsUntil(sim.world.time.now() + (forMs ?? Number.POSITIVE_INFINITY));
    sim.decide(
      'scenario',
      'unavailable',
      `EC2 has no capacity for ${JSON.stringify(selector)}${forMs ? ` for ${forMs / 1000}s` : ''}`,
    );
    if (forMs)
      sim.world.time.setTimeout(() => {
        ec2.capacity.setCapacity(selector, Number.POSITIVE_INFINITY);
        sim.decide('scenario', 'available', `EC2 has capacity again for ${JSON.stringify(selector)}`);
      }, forMs);
  } else if (step.throttle) {
    ec2.throttle(step.throttle.operation, step.throttle.times);
    sim.decide(
      'scenario',
      'throttle',
      `EC2 throttles the next ${step.throttle.times} ${step.throttle.operation} call(s)`,
    );
  } else if (step.crash) {
    sim.router.crashNext.add(step.crash.function);
    sim.decide('scenario', 'crash', `the next ${step.crash.function} run crashes mid-invocation`);
  } else if (step.newAmi) {
    const arch = step.newAmi.arch;
    const image = ec2.addImage({
      name: `al2023-${arch}-${sim.elapsed}`,
      architecture: arch === 'arm64' ? 'arm64' : 'x86_64',
      creationDate: new Date(sim.world.time.now()).toISOString(),
    });
    ssm.seed(
      amiParameter(al2023Path(arch === 'arm64' ? 'arm64' : 'x86_64', 'standard'), image.ImageId ?? ''),
    );
    sim.decide('scenario', 'new-ami', `a new AL2023 ${arch} AMI is published: ${image.ImageId}`);
  } else if (step.dropWatches) {
    kube.dropWatches({ abrupt: true });
    sim.decide('scenario', 'drop-watches', 'the API server drops every watch');
  }
}

/** The instance a step names: by id, by NodeClaim, or the oldest running spot (or any) instance with a node. */
function instanceOf(
  sim: Simulation,
  target: { nodeClaim?: string; instanceId?: string; spot?: 'any'; instance?: 'any' },
  where: string,
): string {
  if (target.instanceId) return target.instanceId;
  const claims = sim.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[];
  if (target.nodeClaim) {
    const claim = claims.find((c) => c.metadata.name === target.nodeClaim);
    const id = String(claim?.status?.providerID ?? '')
      .split('/')
      .pop();
    if (!id) throw new Error(`${where}.nodeClaim: no launched NodeClaim ${target.nodeClaim}`);
    return id;
  }
  const spotOnly = target.spot !== undefined;
  const candidates = sim.world.fakes.ec2
    .listInstances()
    .filter(
      (i) =>
        (!spotOnly || i.InstanceLifecycle === 'spot') &&
        i.State?.Name === 'running' &&
        sim.kubelet.nodeOf(i.InstanceId ?? ''),
    )
    .sort((a, b) => (a.LaunchTime?.getTime() ?? 0) - (b.LaunchTime?.getTime() ?? 0));
  if (candidates.length === 0)
    throw new Error(
      `${where}.${spotOnly ? 'spot' : 'instance'}: no running ${spotOnly ? 'spot ' : ''}instance with a node`,
    );
  return candidates[0].InstanceId ?? '';
}
