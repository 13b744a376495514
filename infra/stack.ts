import { CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Podlift } from './podlift';
import type { PodliftProps } from './props';

/** A stack holding one {@link Podlift}, with the outputs the install needs. */
export class PodliftStack extends Stack {
  readonly podlift: Podlift;

  /**
   * @param props.podlift the Podlift props, or a function building them in this stack (to import
   * an existing role into it)
   */
  constructor(
    scope: Construct,
    id: string,
    props: StackProps & { readonly podlift: PodliftProps | ((stack: Stack) => PodliftProps) },
  ) {
    super(scope, id, props);
    const podliftProps = typeof props.podlift === 'function' ? props.podlift(this) : props.podlift;
    this.podlift = new Podlift(this, 'Podlift', podliftProps);
    const p = this.podlift;
    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    output('EventBusName', p.eventBus.eventBusName, 'EVENT_BUS_NAME for manifests/kustomization.yaml');
    output('InterruptionQueueUrl', p.interruptionQueue.queueUrl, 'The interruption queue');
    output(
      'FunctionsRoleArn',
      p.functionsRole.roleArn,
      'The provisioner, interruption and disruption role (access entry: group podlift:functions)',
    );
    output(
      'TerminationRoleArn',
      p.terminationRole.roleArn,
      'The termination function role (access entry: group podlift:termination)',
    );
    output('NodeRoleArn', p.nodeRole.roleArn, 'The node role');
    output('NodeRoleName', p.nodeRole.roleName, 'spec.role of your EC2NodeClasses');
    output('InstanceProfileName', p.instanceProfile.instanceProfileName, 'or spec.instanceProfile');
    if (p.watcherRole) output('WatcherRoleArn', p.watcherRole.roleArn, "The watcher's role");
    output('WatcherImageUri', p.watcherImageUri, 'The watcher image');
    if (p.install) {
      output(
        'ManifestsInstalled',
        p.install.resource.ref,
        'manifests/ is applied by this stack (Custom::PodliftManifests); the watcher is rolled out',
      );
    } else if (p.kops) {
      output(
        'InstallManifestsCommand',
        installManifestsCommand({
          clusterName: p.clusterName,
          region: this.region,
          eventBusName: p.eventBus.eventBusName,
          imageUri: p.watcherImageUri,
          ...(p.watcherRole ? { watcherRoleArn: p.watcherRole.roleArn } : {}),
          ...(p.kops.parameterKeyArn ? { keyId: p.kops.parameterKeyArn } : {}),
        }),
        "Run from the repository root with the cluster's admin kubeconfig (kops export kubecfg --admin)",
      );
    } else {
      output(
        'ApplyManifestsCommand',
        applyManifestsCommand(p.clusterName, p.eventBus.eventBusName, this.region, p.watcherImageUri),
        'Run from the repository root',
      );
    }
  }
}

/**
 * The one command that installs podlift's in-cluster parts in a kOps cluster (cli/install.ts):
 * the manifests, the functions' ServiceAccount and its token in the SSM parameter. Add
 * `--service-cidr` when the cluster's is not kOps' default.
 */
export function installManifestsCommand(values: {
  readonly clusterName: string;
  readonly region: string;
  readonly eventBusName: string;
  readonly imageUri: string;
  readonly watcherRoleArn?: string;
  readonly keyId?: string;
}): string {
  return Fn.join('', [
    `npx podlift install --kops --cluster ${values.clusterName} --region `,
    values.region,
    ' --event-bus ',
    values.eventBusName,
    ' --image ',
    values.imageUri,
    ...(values.watcherRoleArn ? [' --watcher-role-arn ', values.watcherRoleArn] : []),
    ...(values.keyId ? [' --key-id ', values.keyId] : []),
  ]);
}

/**
 * The command that points manifests/ at this stack (image, CLUSTER_NAME, EVENT_BUS_NAME,
 * AWS_REGION in kustomization.yaml) and applies it. GNU sed; the literals' keys each occur
 * once with `=` in kustomization.yaml.
 */
export function applyManifestsCommand(
  clusterName: string,
  busName: string,
  region: string,
  imageUri: string,
): string {
  return Fn.join('', [
    `cd manifests && kustomize edit set image podlift/watcher=`,
    imageUri,
    ` && sed -i -e 's|CLUSTER_NAME=.*|CLUSTER_NAME=${clusterName}|' -e 's|EVENT_BUS_NAME=.*|EVENT_BUS_NAME=`,
    busName,
    `|' -e 's|AWS_REGION=.*|AWS_REGION=`,
    region,
    `|' kustomization.yaml && kubectl apply -k .`,
  ]);
}
