import { basename, join } from 'node:path';
import {
  Aws,
  CustomResource,
  custom_resources as cr,
  Duration,
  aws_eks as eks,
  aws_iam as iam,
  aws_lambda as lambda,
  aws_logs as logs,
  aws_lambda_nodejs as nodejs,
  RemovalPolicy,
  Stack,
  Stage,
  aws_stepfunctions as sfn,
} from 'aws-cdk-lib';
import { Construct, type IConstruct } from 'constructs';
import { INSTALL_MANIFESTS_ASSET, type InstallProperties } from '../../shared/core/contracts/install';
import { FUNCTION_NODE_OPTIONS, REPO_ROOT } from './function-bundle';
import { functionBundling } from './functions';
import { installManifests, MANIFESTS_DIR, writeInstallManifests } from './install-manifests';

/** The EKS access policy the installer's access entry is associated with. */
export const INSTALLER_ACCESS_POLICY = 'AmazonEKSClusterAdminPolicy';

/** Props of {@link ClusterInstall}. */
export interface ClusterInstallProps {
  readonly clusterName: string;
  readonly eventBusName: string;
  readonly watcherImageUri: string;
  readonly logRetention: logs.RetentionDays;
  /**
   * What must exist before the watcher starts: the access entries and Pod Identity association
   * (its AWS credentials), so the Deployment can become ready.
   */
  readonly dependsOn: readonly IConstruct[];
  /**
   * How long the Provider framework polls for the watcher's rollout. Keep it above the
   * installer's 5-minute grace window for a fresh access entry (shared/core/install/
   * access-grace.ts), or a slowly propagating one ends as `Operation timed out`.
   * @default 10 minutes
   */
  readonly readinessTimeout?: Duration;
  /** The manifests directory. @default manifests/ of this checkout */
  readonly manifestsDir?: string;
}

/**
 * Installs podlift's in-cluster parts (manifests/: CRDs, namespace, RBAC, the watcher's
 * ConfigMap and Deployment) in an EKS cluster as one CloudFormation custom resource,
 * `Custom::PodliftManifests`, served by aws-cdk-lib's Provider framework
 * (custom-resources/lib/provider-framework/provider.ts `Provider`): the installer's onEvent
 * server-side applies them as field manager `podlift` and prunes what the previous version
 * applied, isComplete polls the watcher's rollout every 10 s (the framework's waiter state
 * machine, waiter-state-machine.ts, retries it; no invocation waits), and a Delete removes
 * everything but the CRDs.
 *
 * The installer's role gets an EKS access entry associated with AmazonEKSClusterAdminPolicy:
 * creating CRDs, and ClusterRoles and bindings that grant rights the creator does not hold
 * (RBAC escalation prevention), needs cluster-admin's rights, and an access policy is the only
 * grant that exists before podlift's own RBAC does. Only the Provider framework invokes it.
 */
export class ClusterInstall extends Construct {
  readonly role: iam.Role;
  readonly resource: CustomResource;
  /** The installer's onEvent and isComplete functions. */
  readonly functions: { readonly onEvent: nodejs.NodejsFunction; readonly isComplete: nodejs.NodejsFunction };
  readonly provider: cr.Provider;

  constructor(scope: Construct, id: string, props: ClusterInstallProps) {
    super(scope, id);
    const { clusterName } = props;
    const manifests = installManifests(props.manifestsDir ?? MANIFESTS_DIR);
    // Written only when bundling runs (unit tests skip it: aws:cdk:bundling-stacks []).
    const asset = Stack.of(this).bundlingRequired
      ? writeInstallManifests(
          join(Stage.of(this)?.outdir ?? join(REPO_ROOT, 'cdk.out'), '.podlift-install'),
          manifests.json,
          INSTALL_MANIFESTS_ASSET,
        )
      : undefined;

    this.role = new iam.Role(this, 'Role', {
      description: `podlift installer of cluster ${clusterName}: applies manifests/ to the cluster`,
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DescribeTheCluster',
        actions: ['eks:DescribeCluster'],
        resources: [`arn:${Aws.PARTITION}:eks:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${clusterName}`],
      }),
    );
    const accessEntry = new eks.CfnAccessEntry(this, 'AccessEntry', {
      clusterName,
      principalArn: this.role.roleArn,
      type: 'STANDARD',
      accessPolicies: [
        {
          policyArn: `arn:${Aws.PARTITION}:eks::aws:cluster-access-policy/${INSTALLER_ACCESS_POLICY}`,
          accessScope: { type: 'cluster' },
        },
      ],
    });

    const make = (handler: 'onEvent' | 'isComplete', timeout: Duration): nodejs.NodejsFunction => {
      const name = handler === 'onEvent' ? 'OnEvent' : 'IsComplete';
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: props.logRetention,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      logGroup.grantWrite(this.role);
      const bundling = functionBundling(undefined);
      return new nodejs.NodejsFunction(this, name, {
        description: `podlift installer (${handler}) of cluster ${clusterName}`,
        entry: join(REPO_ROOT, 'functions', 'install', 'handler.ts'),
        handler,
        projectRoot: REPO_ROOT,
        depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: 256,
        timeout,
        role: this.role,
        logGroup,
        loggingFormat: lambda.LoggingFormat.JSON,
        environment: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS },
        bundling: {
          ...bundling,
          ...(asset === undefined
            ? {}
            : {
                commandHooks: {
                  beforeBundling: () => [],
                  beforeInstall: () => [],
                  afterBundling: (_in: string, outputDir: string) => [
                    `cp '${asset}' '${join(outputDir, basename(asset))}'`,
                  ],
                },
              }),
        },
      });
    };
    this.functions = {
      // 17 objects, each one PATCH; the CRDs are the bulk (60 KB). isComplete applies them too
      // while the installer's fresh access entry propagates (functions/install/install.ts).
      onEvent: make('onEvent', Duration.minutes(2)),
      isComplete: make('isComplete', Duration.minutes(2)),
    };

    this.provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.functions.onEvent,
      isCompleteHandler: this.functions.isComplete,
      queryInterval: Duration.seconds(10),
      totalTimeout: props.readinessTimeout ?? Duration.minutes(10),
      logGroup: new logs.LogGroup(this, 'ProviderLogs', {
        retention: props.logRetention,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
      disableWaiterStateMachineLogging: false,
      waiterStateMachineLogOptions: {
        destination: new logs.LogGroup(this, 'WaiterLogs', {
          retention: props.logRetention,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        level: sfn.LogLevel.ALL,
        includeExecutionData: true,
      },
    });

    const properties: InstallProperties = {
      ClusterName: clusterName,
      EventBusName: props.eventBusName,
      Region: Aws.REGION,
      WatcherImage: props.watcherImageUri,
      ManifestsDigest: manifests.digest,
      Objects: [...manifests.objects],
    };
    this.resource = new CustomResource(this, 'Manifests', {
      serviceToken: this.provider.serviceToken,
      resourceType: 'Custom::PodliftManifests',
      properties,
    });
    this.resource.node.addDependency(accessEntry, ...props.dependsOn);
  }
}
