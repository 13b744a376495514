import {
  type aws_events as events,
  aws_iam as iam,
  aws_logs as logs,
  type aws_lambda_nodejs as nodejs,
  type aws_sqs as sqs,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { KUBERNETES_GROUP_OF } from '../shared/core/contracts/kubernetes-identities';
import type { FunctionName } from '../shared/core/contracts/routing';
import { acknowledgeFindings } from './nag';
import { PodliftAlarms } from './parts/alarms';
import { ClusterIdentities, kopsParameterArn, NodeIdentity } from './parts/cluster-identities';
import { ClusterInstall } from './parts/cluster-install';
import { controllerStatements, terminationStatements } from './parts/controller-policy';
import { PodliftDashboard } from './parts/dashboard';
import { FUNCTION_SIZING, PodliftFunctions } from './parts/functions';
import { NodePoolParameters } from './parts/node-pool-parameters';
import { Routing } from './parts/routing';
import { WatcherImage } from './parts/watcher-image';
import { type KopsAccessProps, type PodliftProps, resolveProps } from './props';

/**
 * podlift for one cluster: the cluster's event bus and rules, the interruption queue and its
 * default-bus rules, the four functions with their role, the node role and instance profile,
 * the cluster identities (EKS access entries and the watcher's Pod Identity, or kOps), the
 * watcher image and the NodePool parameters. Teams with their own CDK app instantiate it in a
 * stack of theirs; `cdk deploy -c cluster=<name>` uses {@link PodliftStack}.
 */
export class Podlift extends Construct {
  /** The cluster's bus: the watcher publishes here, the functions publish hints to one another. */
  readonly eventBus: events.EventBus;
  /** The interruption queue the default-bus rules feed. */
  readonly interruptionQueue: sqs.Queue;
  /** Where messages go after three failed receives. */
  readonly deadLetterQueue: sqs.Queue;
  /** The role of provisioner, interruption and disruption, which launch capacity. */
  readonly functionsRole: iam.Role;
  /** The termination function's role: it lists and terminates the cluster's instances, nothing more. */
  readonly terminationRole: iam.Role;
  /** The node role; EC2NodeClasses name it in `spec.role`. */
  readonly nodeRole: iam.IRole;
  readonly instanceProfile: iam.InstanceProfile;
  /** The watcher's role; absent in kOps mode without an OIDC provider. */
  readonly watcherRole?: iam.Role;
  /** The watcher image to set in manifests/kustomization.yaml. */
  readonly watcherImageUri: string;
  readonly functions: Readonly<Record<FunctionName, nodejs.NodejsFunction>>;
  /** The cluster's name, as given. */
  readonly clusterName: string;
  /** kOps mode's access props; absent on EKS. */
  readonly kops?: KopsAccessProps;
  /** The custom resource installing manifests/ in the cluster; absent when `installManifests` is off. */
  readonly install?: ClusterInstall;
  /** Dead letters, function errors and throttles, interruption queue age, a failing provisioner. */
  readonly alarms: PodliftAlarms;
  /** The CloudWatch dashboard `podlift-<cluster>` of the functions' metrics. */
  readonly dashboard: PodliftDashboard;

  constructor(scope: Construct, id: string, props: PodliftProps) {
    super(scope, id);
    const resolved = resolveProps(props);
    const { clusterName, clusterAccess } = resolved;
    this.clusterName = clusterName;

    const nodes = new NodeIdentity(this, 'Node', {
      clusterName,
      ...(props.nodeRole ? { role: props.nodeRole } : {}),
    });
    this.nodeRole = nodes.role;
    this.instanceProfile = nodes.instanceProfile;

    const routing = new Routing(this, 'Routing', {
      clusterName,
      interruptionTimeout: FUNCTION_SIZING.interruption.timeout,
    });
    this.eventBus = routing.bus;
    this.interruptionQueue = routing.queue;
    this.deadLetterQueue = routing.deadLetterQueue;

    this.functionsRole = new iam.Role(this, 'FunctionsRole', {
      description: `podlift functions of cluster ${clusterName}`,
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    this.terminationRole = new iam.Role(this, 'TerminationRole', {
      description: `podlift termination function of cluster ${clusterName}`,
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    const kops = clusterAccess.kind === 'kops' ? clusterAccess : undefined;
    if (kops) this.kops = kops;
    const policyScope = {
      clusterName,
      nodeRoleArn: this.nodeRole.roleArn,
      eventBusArn: this.eventBus.eventBusArn,
      ...(kops ? { kopsParameterArn: kopsParameterArn(clusterName) } : {}),
      ...(kops?.parameterKeyArn ? { kopsParameterKeyArn: kops.parameterKeyArn } : {}),
    };
    const controllerPolicy = new iam.Policy(this, 'ControllerPolicy', {
      roles: [this.functionsRole],
      statements: controllerStatements(policyScope),
    });
    const terminationPolicy = new iam.Policy(this, 'TerminationPolicy', {
      roles: [this.terminationRole],
      statements: terminationStatements(policyScope),
    });

    const functions = new PodliftFunctions(this, 'Functions', {
      roles: {
        provisioner: this.functionsRole,
        interruption: this.functionsRole,
        disruption: this.functionsRole,
        termination: this.terminationRole,
      },
      environment: {
        CLUSTER_NAME: clusterName,
        EVENT_BUS_NAME: this.eventBus.eventBusName,
        CLUSTER_ACCESS: clusterAccess.kind,
        LEASE_NAMESPACE: resolved.leaseNamespace,
        LEASE_NAME: resolved.leaseName,
        REBALANCE_ACTION: resolved.rebalanceAction,
        FEATURE_GATES: `NodeRepair=${resolved.featureGates.nodeRepair},SpotToSpotConsolidation=${resolved.featureGates.spotToSpotConsolidation},ReservedCapacity=${resolved.featureGates.reservedCapacity},GlobalConsolidation=${resolved.featureGates.globalConsolidation},PodDeletionCostManagement=${resolved.featureGates.podDeletionCostManagement},CandidateTaint=${resolved.featureGates.candidateTaint}`,
      },
      logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      interruptionQueue: this.interruptionQueue,
    });
    this.functions = functions.functions;
    routing.route(this.functions);
    this.alarms = new PodliftAlarms(this, 'Alarms', {
      clusterName,
      functions: this.functions,
      interruptionQueue: this.interruptionQueue,
      deadLetterQueue: this.deadLetterQueue,
      ...props.alarms,
    });
    this.dashboard = new PodliftDashboard(this, 'Dashboard', {
      clusterName,
      functions: this.functions,
      alarms: this.alarms.alarms,
    });

    const identities = new ClusterIdentities(this, 'Identities', {
      clusterName,
      access: clusterAccess,
      nodeRole: this.nodeRole,
      functionRoles: {
        Functions: { role: this.functionsRole, kubernetesGroup: KUBERNETES_GROUP_OF.provisioner },
        Termination: { role: this.terminationRole, kubernetesGroup: KUBERNETES_GROUP_OF.termination },
      },
      nodeAccessEntry: props.nodeRole === undefined,
    });
    if (identities.watcherRole) {
      this.watcherRole = identities.watcherRole;
      this.grantPutEvents(this.watcherRole);
    }
    this.watcherImageUri = (props.watcherImage ?? WatcherImage.fromBuild()).bind(this);
    if (resolved.installManifests) {
      this.install = new ClusterInstall(this, 'Install', {
        clusterName,
        eventBusName: this.eventBus.eventBusName,
        watcherImageUri: this.watcherImageUri,
        logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
        dependsOn: [identities, ...(this.watcherRole ? [this.watcherRole] : [])],
      });
    }
    if (props.nodePools) new NodePoolParameters(this, 'NodePools', { clusterName, sources: props.nodePools });
    acknowledgeFindings({
      clusterName,
      policies: [controllerPolicy, terminationPolicy],
      functions,
      ...(props.nodeRole ? {} : { nodeRole: nodes.role }),
      ...(this.install ? { install: this.install } : {}),
    });
  }

  /** Lets `grantee` publish to the cluster's bus (events:PutEvents on it, nothing else). */
  grantPutEvents(grantee: iam.IGrantable): iam.Grant {
    return this.eventBus.grantPutEventsTo(grantee);
  }

  /** Lets `grantee` read and delete what landed in the dead-letter queue (operators, alarms). */
  grantConsumeDeadLetters(grantee: iam.IGrantable): iam.Grant {
    return this.deadLetterQueue.grantConsumeMessages(grantee);
  }

  /** Lets `grantee` pass the node role to EC2 (another controller launching podlift nodes). */
  grantPassNodeRole(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['iam:PassRole'],
      resourceArns: [this.nodeRole.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
    });
  }
}
