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
const context = (key: string): unknown => app.node.tryGetContext(key);
const cluster = podliftPropsFromContext(context).clusterName;
new PodliftStack(app, `Podlift-${cluster.replaceAll('_', '-')}`, {
  podlift: (stack) => podliftPropsFromContext(context, stack),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: `podlift for cluster ${cluster}`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
