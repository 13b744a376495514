import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { WatcherImage } from '../../infra/parts/watcher-image';
import type { PodliftProps } from '../../infra/props';
import { PodliftStack } from '../../infra/stack';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/** One temp folder for every test app's outdir, removed by {@link removeTestApps}. */
let root: string | undefined;

/**
 * An App with cdk.json's feature flags (as `cdk synth` has them), the built-in CloudFormation
 * validation off, and bundling skipped unless `bundle` (the NodejsFunctions keep their real
 * props). Its outdir is under one temp folder.
 */
export function testApp(opts: { bundle?: boolean } & AppProps = {}): App {
  const { bundle, ...rest } = opts;
  root ??= mkdtempSync(join(tmpdir(), 'podlift-infra-test-'));
  return new App({
    builtinCloudFormationValidation: false,
    outdir: mkdtempSync(join(root, 'app-')),
    ...rest,
    context: { ...cdkJson.context, ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }), ...rest.context },
  });
}

/** Removes every test app's output (afterAll). */
export function removeTestApps(): void {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
}

/** The image every test uses unless it tests the built one. */
export const TEST_IMAGE = 'public.ecr.aws/example/podlift-watcher:1.0.0';

/** A synthesized stack for `props` (cluster `demo`, a given image), with cdk-nag on when `nag`. */
export function synthStack(
  props: Partial<PodliftProps> = {},
  opts: { nag?: boolean; app?: App } = {},
): { stack: PodliftStack; template: Template } {
  const app = opts.app ?? testApp();
  const stack = new PodliftStack(app, 'Podlift-demo', {
    podlift: { clusterName: 'demo', watcherImage: WatcherImage.fromUri(TEST_IMAGE), ...props },
    env: { account: '123456789012', region: 'us-east-1' },
  });
  if (opts.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { stack, template: Template.fromStack(stack) };
}
