import { App } from 'aws-cdk-lib';

/**
 * The CDK app behind `cdk synth` / `cdk deploy`. The per-cluster Podlift stack arrives with the
 * CDK work (see the README's roadmap); until then the app synthesises an empty assembly.
 */
const app = new App();
app.synth();
