import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { isValidationError } from '../shared/core/model/errors';
import { podliftPropsFromContext } from './context';
import { PodliftStack } from './stack';

/**
 * The CDK app behind `cdk synth` / `cdk deploy -c cluster=<name>`: one stack per cluster, named
 * `Podlift-<cluster>`, checked by cdk-nag's AwsSolutions rules (any unacknowledged finding fails
 * synth). Context keys: see infra/context.ts. A bad prop, context value or NodePool manifest ends
 * the app with its message alone (file, object, field, value), not a stack trace.
 */
try {
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
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const expected = isValidationError(error) || /^(Podlift|context|WatcherImage)\b/.test(message);
  if (!expected) throw error;
  process.stderr.write(`podlift: ${message}\n`);
  process.exitCode = 1;
}
