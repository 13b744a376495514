import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { podliftPropsFromContext } from './context';
import { PodliftStack } from './stack';

/**
 * The CDK app behind `cdk synth` / `cdk deploy -c cluster=<name>`: one stack per cluster, named
 * `Podlift-<cluster>`, checked by cdk-nag's AwsSolutions rules (any unacknowledged finding fails
 * synth). Context keys: see infra/context.ts.
 */
const app = new App();
const props = podliftPropsFromContext((key) => app.node.tryGetContext(key));
new PodliftStack(app, `Podlift-${props.clusterName.replaceAll('_', '-')}`, {
  podlift: props,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: `podlift for cluster ${props.clusterName}`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
