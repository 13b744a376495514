import { CreateFleetCommand, type CreateFleetCommandOutput, type EC2Client } from '@aws-sdk/client-ec2';
import type { InstanceType } from '../../core/catalog/instance-type';
import type { UnavailableOfferings } from '../../core/catalog/unavailable-offerings';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { CloudError, InsufficientCapacityError } from '../../core/model/errors';
import {
  LABEL_CAPACITY_RESERVATION_ID,
  LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
  LABEL_CAPACITY_RESERVATION_TYPE,
  LABEL_PLACEMENT_GROUP_PARTITION,
} from '../../core/model/labels';
import { type LaunchedInstance, providerID } from '../../core/model/nodeclaim';
import type { InstanceLauncherPort, LaunchRequest } from '../../core/ports/cloud';
import type { LaunchTemplateProvider, LaunchTemplateRef } from '../../core/ports/launch-templates';
import type { Clock } from '../../core/ports/time';
import { awsErrorCode, cloudErrorFrom, errorMessage } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';
import { fleetClientToken } from './client-token';
import { type Ec2Instance, Ec2Instances } from './ec2-instances';
import { type FleetPlan, type FleetPlanInput, fleetCapacityType, planFleet } from './fleet-plan';
import { createFleetInput } from './fleet-request';
import {
  type FleetOutcome,
  readFleetOutput,
  SPOT_SERVICE_LINKED_ROLE_CODE,
  SUBNET_FULL_CODE,
} from './fleet-result';
import { InflightAddresses } from './inflight-addresses';
import { launchLabels } from './launch-labels';
import { launchTags } from './launch-tags';

/** CreateFleet's answers for a launch template that does not exist (any more), thrown or per override. */
const LAUNCH_TEMPLATE_NOT_FOUND: ReadonlySet<string> = new Set([
  'InvalidLaunchTemplateName.NotFoundException',
  'InvalidLaunchTemplateId.NotFound',
  'InvalidLaunchTemplateId.VersionNotFound',
]);

/** States of an earlier instance of a NodeClaim that still serve it; one shutting down does not. */
const SERVING_STATES: ReadonlySet<string> = new Set(['pending', 'running']);

/** What {@link Ec2InstanceLauncher} needs. Cheap to build: make one per invocation. */
export interface Ec2InstanceLauncherOptions {
  readonly ec2: EC2Client;
  readonly cluster: ClusterInfo;
  readonly launchTemplates: LaunchTemplateProvider;
  /** The region's instance types by name (offerings and labels; allocatable is not used here). */
  readonly instanceTypes: ReadonlyMap<string, InstanceType>;
  /** Offerings, capacity types and subnets EC2 refused recently: skipped when planning, marked after each refusal. */
  readonly unavailableOfferings: UnavailableOfferings;
  /** Backoff and the invocation's deadline for throttled calls. */
  readonly retry: RetryPolicy;
  /** For the ClientToken's window. */
  readonly clock: Clock;
  /** DescribeInstances page size, for tests. @default 1000 */
  readonly pageSize?: number;
}

/**
 * Launches NodeClaims with CreateFleet (`instant`, one instance, Karpenter's overrides, launch
 * filters, allocation strategies and tags) and terminates and describes the cluster's instances.
 *
 * Idempotent per NodeClaim: before launching, the NodeClaim's instance is looked up by its
 * `karpenter.sh/nodeclaim` tag (an earlier invocation may have launched it and died before
 * recording it); the ClientToken is derived from the NodeClaim and the request, so a retried
 * identical request returns EC2's first answer, and a changed one (a recreated launch template,
 * offerings refused since) is a new request rather than IdempotentParameterMismatch.
 */
export class Ec2InstanceLauncher implements InstanceLauncherPort {
  /** Describe, list and terminate, for the garbage collector and the termination loop. */
  readonly instances: Ec2Instances;
  private readonly inflight = new InflightAddresses();

  constructor(private readonly options: Ec2InstanceLauncherOptions) {
    this.instances = new Ec2Instances({
      ec2: options.ec2,
      cluster: options.cluster.name,
      retry: options.retry,
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    });
  }

  /**
   * Launches one instance for the NodeClaim, or returns the one it already has, and marks what
   * EC2 refused (offerings, spot as a whole, full subnets), also when something else launched.
   * A missing launch template is recreated and the launch tried once more, as Karpenter's
   * `Create` does (pkg/providers/instance/instance.go).
   *
   * @throws InsufficientCapacityError when nothing launched and every refusal was for capacity,
   *   or no offering was left to ask for; `refused` lists each offering and its code.
   * @throws CloudError when EC2 failed otherwise (bad template, AMI or parameter; throttling
   *   beyond the deadline), naming the NodeClaim and instance type.
   */
  async launch(request: LaunchRequest): Promise<LaunchedInstance> {
    const earlier = await this.instances.listByNodeClaim(request.nodeClaim.name);
    const serving = earlier.find((i) => SERVING_STATES.has(i.state));
    if (serving !== undefined) return this.labelled(request, launchedFrom(serving), serving);
    const replaces = earlier.map((i) => i.id);
    let launched: LaunchedInstance;
    try {
      launched = await this.launchOnce(request, replaces);
    } catch (error) {
      if (!isLaunchTemplateMissing(error)) throw error;
      // The templates were forgotten: ensure() creates them again, under new ids.
      launched = await this.launchOnce(request, replaces);
    }
    return this.labelled(request, launched);
  }

  /**
   * The launch with its labels ({@link launchLabels}). In a partition group where EC2 chose the
   * partition, it is read back from DescribeInstances, as Karpenter's PlacementGroupRegistrationHook
   * does, so the partition label is there before pods spread over it; an instance EC2 does not
   * show yet (eventual consistency) leaves the label out.
   */
  private async labelled(
    request: LaunchRequest,
    launched: LaunchedInstance,
    known?: Ec2Instance,
  ): Promise<LaunchedInstance> {
    const labels = { ...launchLabels(request), ...reservationLabels(request, launched) };
    if (
      request.resolved.placementGroup?.strategy === 'partition' &&
      !(LABEL_PLACEMENT_GROUP_PARTITION in labels)
    ) {
      const instance = known ?? (await this.instances.describe([launched.instanceId]))[0];
      if (instance?.partitionNumber !== undefined)
        labels[LABEL_PLACEMENT_GROUP_PARTITION] = String(instance.partitionNumber);
    }
    return { ...launched, labels };
  }

  /** Terminates; instances already gone count as terminated. */
  terminate(instanceIds: readonly string[]): Promise<void> {
    return this.instances.terminate(instanceIds);
  }

  private async launchOnce(request: LaunchRequest, replaces: readonly string[]): Promise<LaunchedInstance> {
    const { nodeClaim } = request;
    // Nothing the NodeClaim's requirements allow is left (every offering refused since it was
    // planned): an insufficient-capacity error, as the AWS provider's `filterInstanceTypes`
    // answers "all requested instance types were unavailable during launch".
    if (request.options.length === 0) throw new InsufficientCapacityError(nodeClaim.name, []);
    const unavailable = this.options.unavailableOfferings;
    const fleet: Omit<FleetPlanInput, 'launchTemplates'> = {
      nodeClaim,
      options: request.options,
      instanceTypes: this.options.instanceTypes,
      subnets: request.resolved.subnets,
      unavailable: unavailable.keys(),
      unavailableSubnets: unavailable.subnets(),
      inflightAddresses: this.inflight.snapshot(),
    };
    // The templates' user data labels the node with its capacity type, so they are made for the
    // capacity type this fleet will buy (which may differ from the plan's when spot ran out); a
    // reserved launch's template targets its reservation, for the one type the reservation holds.
    const { capacityType, capacityReservation } = fleetCapacityType(fleet);
    const reservedType =
      capacityReservation === undefined
        ? undefined
        : [...this.options.instanceTypes.values()].find((it) =>
            it.offerings.some((o) => o.reservation?.id === capacityReservation.id),
          )?.name;
    const templates = await this.options.launchTemplates.ensure(
      {
        ...request,
        options: request.options
          .filter((o) => reservedType === undefined || o.name === reservedType)
          .map((o) => ({ ...o, capacityType })),
        ...(capacityReservation === undefined ? {} : { capacityReservation }),
      },
      this.options.cluster,
    );
    const plan = planFleet({ ...fleet, launchTemplates: templates });
    if (plan.configs.length === 0) throw new InsufficientCapacityError(nodeClaim.name, plan.skipped);

    const what = launching(nodeClaim.name, plan);
    const body = this.requestBody(request, plan);
    const token = fleetClientToken({ nodeClaim, request: body, now: this.options.clock.now(), replaces });
    const input = { ...body, ClientToken: token };

    for (const [subnetId, addresses] of plan.subnetAddresses) this.inflight.reserve(subnetId, addresses);
    let output: CreateFleetCommandOutput;
    try {
      output = await withRetry(
        what,
        () => this.options.ec2.send(new CreateFleetCommand(input)),
        this.options.retry,
      );
    } catch (error) {
      for (const [subnetId, addresses] of plan.subnetAddresses) this.inflight.release(subnetId, addresses);
      throw this.requestFailure(what, templates, error);
    }
    const outcome = readFleetOutput(output, plan);
    this.settleAddresses(plan, outcome);
    this.markRefusals(outcome);
    if (outcome.launched !== undefined)
      return {
        ...launchedFrom(outcome.launched),
        ...(plan.capacityReservation === undefined
          ? {}
          : { capacityReservationId: plan.capacityReservation.id }),
      };
    throw this.fleetFailure(nodeClaim.name, plan, templates, outcome);
  }

  /** The CreateFleet request for the plan, tagged for the NodeClaim, without its ClientToken. */
  private requestBody(request: LaunchRequest, plan: FleetPlan) {
    return createFleetInput({
      plan,
      tags: launchTags({
        cluster: this.options.cluster.name,
        nodePool: request.nodePool.name,
        nodeClaim: request.nodeClaim.name,
        nodeClass: request.nodeClass.name,
        nodeClassTags: request.nodeClass.tags,
      }),
      ...(request.nodeClass.context === undefined ? {} : { context: request.nodeClass.context }),
    });
  }

  /**
   * Keeps the addresses in flight only for the subnet the fleet launched into (Karpenter's
   * `UpdateInflightIPs`), and forgets the subnets EC2 said are full.
   */
  private settleAddresses(plan: FleetPlan, outcome: FleetOutcome): void {
    const launchedIn = new Set<string>();
    for (const instance of [outcome.launched, ...outcome.extra]) {
      const subnetId = plan.configs
        .flatMap((c) => c.overrides)
        .find((o) => o.instanceType === instance?.instanceType && o.zone === instance?.zone)?.subnetId;
      if (subnetId !== undefined) launchedIn.add(subnetId);
    }
    for (const [subnetId, addresses] of plan.subnetAddresses)
      if (!launchedIn.has(subnetId)) this.inflight.release(subnetId, addresses);
    for (const subnetId of outcome.fullSubnets) this.inflight.forget(subnetId);
  }

  /**
   * Marks what EC2 refused, as Karpenter's `updateUnavailableOfferingsCache` does: a full subnet
   * as such, so the zone's other subnets are used instead of the offering being given up; spot
   * as a whole when its service-linked role is missing; every other capacity refusal as its
   * offering.
   */
  private markRefusals(outcome: FleetOutcome): void {
    const unavailable = this.options.unavailableOfferings;
    for (const subnetId of outcome.fullSubnets) unavailable.markSubnet(subnetId, SUBNET_FULL_CODE);
    for (const r of outcome.refused) {
      if (r.code === SPOT_SERVICE_LINKED_ROLE_CODE) unavailable.markCapacityType('spot', r.code);
      // Every override names its subnet, so EC2's answer is about that subnet, marked above.
      // (Karpenter marks the offering too; with another subnet in the zone, podlift uses it.)
      else if (r.code === SUBNET_FULL_CODE) continue;
      // A reserved refusal (ReservationCapacityExceeded) marks its reservation's offering, as
      // Karpenter's `capacityReservationProvider.MarkUnavailable` does (instance.go
      // updateUnavailableOfferingsCache): the next plan launches elsewhere until resolution sees room.
      else if (r.instanceType !== '' && r.zone !== '')
        unavailable.mark(r.instanceType, r.zone, r.capacityType, r.code);
    }
  }

  /** What a CreateFleet call that threw means; a missing launch template makes its templates forgotten. */
  private requestFailure(what: string, templates: readonly LaunchTemplateRef[], error: unknown): CloudError {
    const code = awsErrorCode(error);
    if (code !== undefined && LAUNCH_TEMPLATE_NOT_FOUND.has(code)) {
      return this.templatesMissing(`${what}: ${code}: ${errorMessage(error)}`, code, templates, error);
    }
    // Retryable failures already came back from withRetry as CloudErrors.
    return cloudErrorFrom(what, error);
  }

  /** Why a fleet that launched nothing failed. */
  private fleetFailure(
    nodeClaim: string,
    plan: FleetPlan,
    templates: readonly LaunchTemplateRef[],
    outcome: FleetOutcome,
  ): Error {
    const [failure, ...more] = outcome.failed;
    if (failure === undefined) {
      return new InsufficientCapacityError(nodeClaim, [...outcome.refused, ...plan.skipped]);
    }
    const doing = `launching NodeClaim ${nodeClaim} (${failure.instanceType}, ${failure.zone})`;
    const missing = outcome.failed.find((f) => LAUNCH_TEMPLATE_NOT_FOUND.has(f.code));
    if (missing !== undefined) {
      return this.templatesMissing(`${doing}: ${missing.code}`, missing.code, templates, undefined);
    }
    const others = more.length + outcome.refused.length;
    return new CloudError(
      `${doing}: ${failure.code}${failure.message === undefined ? '' : `: ${failure.message}`}${
        others > 0 ? ` (and ${others} more refused offerings)` : ''
      }`,
      failure.code,
      false,
    );
  }

  /**
   * Someone deleted a template this process believed in (another provisioner's clean-up): forget
   * them all so the next ensure creates them again, and say the launch may be retried.
   */
  private templatesMissing(
    message: string,
    code: string,
    templates: readonly LaunchTemplateRef[],
    cause: unknown,
  ): CloudError {
    for (const t of templates) this.options.launchTemplates.invalidate(t.launchTemplateName);
    return new CloudError(
      `${message}; the launch templates will be recreated on the next attempt`,
      code,
      true,
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * The reservation labels of a `reserved` launch, as Karpenter's cloudprovider.go
 * `instanceToNodeClaim` sets them: capacity-reservation-id, -type and -interruptible, the type
 * and interruptibility from the EC2NodeClass's resolved reservation.
 */
function reservationLabels(request: LaunchRequest, launched: LaunchedInstance): Record<string, string> {
  const id = launched.capacityReservationId;
  if (launched.capacityType !== 'reserved' || id === undefined) return {};
  const resolved = request.resolved.capacityReservations?.find((r) => r.id === id);
  const type = resolved?.reservationType ?? request.capacityReservation?.type ?? 'default';
  const interruptible = resolved?.interruptible ?? request.capacityReservation?.interruptible ?? false;
  return {
    [LABEL_CAPACITY_RESERVATION_ID]: id,
    [LABEL_CAPACITY_RESERVATION_TYPE]: type,
    [LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE]: String(interruptible),
  };
}

/** Whether a launch failed because a launch template is gone (and was forgotten). */
function isLaunchTemplateMissing(error: unknown): boolean {
  return error instanceof CloudError && error.code !== undefined && LAUNCH_TEMPLATE_NOT_FOUND.has(error.code);
}

/** The NodeClaim's record of an instance, launched now or found from an earlier launch. */
function launchedFrom(instance: Ec2Instance | NonNullable<FleetOutcome['launched']>): LaunchedInstance {
  if ('instanceId' in instance) {
    return {
      instanceId: instance.instanceId,
      providerID: providerID(instance.zone, instance.instanceId),
      instanceType: instance.instanceType,
      zone: instance.zone,
      capacityType: instance.capacityType,
      ...(instance.imageId === undefined ? {} : { imageID: instance.imageId }),
    };
  }
  return {
    instanceId: instance.id,
    providerID: instance.providerID,
    instanceType: instance.instanceType,
    zone: instance.zone,
    capacityType: instance.capacityType,
    ...(instance.imageId === undefined ? {} : { imageID: instance.imageId }),
    ...(instance.privateDnsName === undefined ? {} : { privateDnsName: instance.privateDnsName }),
    ...(instance.capacityReservationId === undefined
      ? {}
      : { capacityReservationId: instance.capacityReservationId }),
  };
}

/** `launching NodeClaim default-x7k2 (m5.large, us-east-1a, +11 offerings)`: the cheapest override first. */
function launching(nodeClaim: string, plan: FleetPlan): string {
  const overrides = plan.configs.flatMap((c) => c.overrides);
  const first = overrides.reduce((a, b) => (b.price < a.price ? b : a));
  const more = overrides.length - 1;
  return `launching NodeClaim ${nodeClaim} (${first.instanceType}, ${first.zone}${more > 0 ? `, +${more} offerings` : ''})`;
}
