import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { aws_ecr_assets as ecrAssets, Stack, Stage } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { REPO_ROOT } from './function-bundle';

/** Options of {@link WatcherImage.fromBuild}. */
export interface WatcherBuildOptions {
  /**
   * The CPU architecture of the nodes the watcher runs on (existing nodes, not podlift's).
   * @default 'amd64'
   */
  readonly architecture?: 'amd64' | 'arm64';
}

/**
 * Where the watcher's image comes from. The watcher itself is applied with `kubectl apply -k
 * manifests/`; the stack only provides the image (and outputs its URI for kustomization.yaml).
 */
export abstract class WatcherImage {
  /** An image already in a registry the cluster pulls from. */
  static fromUri(uri: string): WatcherImage {
    if (
      !/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?(:\d+)?(\/[a-z0-9._-]+)+(:[\w.-]+|@sha256:[a-f0-9]{64})?$/.test(uri)
    ) {
      throw new Error(
        `WatcherImage.fromUri: ${JSON.stringify(uri)} is not an image reference such as host/repo:tag`,
      );
    }
    return new UriImage(uri);
  }

  /**
   * Built from watcher/Dockerfile by `cdk deploy` (cdk-assets runs `docker build` and pushes to
   * the bootstrap ECR repository). At synth, esbuild bundles watcher/main.ts into the build
   * context next to a copy of the Dockerfile, as `node watcher/build.mjs` does; no Docker is
   * needed to synthesize, only to deploy.
   */
  static fromBuild(options: WatcherBuildOptions = {}): WatcherImage {
    return new BuiltImage(options.architecture ?? 'amd64');
  }

  /** The image reference, binding an asset to `scope` if needed. */
  abstract bind(scope: Construct): string;
}

class UriImage extends WatcherImage {
  constructor(private readonly uri: string) {
    super();
  }
  bind(): string {
    return this.uri;
  }
}

class BuiltImage extends WatcherImage {
  constructor(private readonly architecture: 'amd64' | 'arm64') {
    super();
  }
  bind(scope: Construct): string {
    const outdir = Stage.of(scope)?.outdir ?? join(REPO_ROOT, 'cdk.out');
    const context = join(outdir, '.podlift-watcher-context');
    rmSync(context, { recursive: true, force: true });
    mkdirSync(context, { recursive: true });
    copyFileSync(join(REPO_ROOT, 'watcher', 'Dockerfile'), join(context, 'Dockerfile'));
    // Bundling skipped (unit tests: aws:cdk:bundling-stacks []): the context holds only the
    // Dockerfile, as CDK stages a dummy asset for a NodejsFunction it does not bundle.
    if (Stack.of(scope).bundlingRequired) {
      // watcher/build.mjs is the one definition of the watcher's bundle (npm run build:watcher
      // runs it too), so the image and a local build cannot drift apart.
      const built = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'watcher', 'build.mjs'), '--outfile', join(context, 'main.mjs')],
        { encoding: 'utf8' },
      );
      // esbuild's warnings reach the synth output, where synth:check fails on them.
      if (built.stderr) process.stderr.write(built.stderr);
      if (built.status !== 0) {
        throw new Error(
          `WatcherImage.fromBuild: bundling the watcher (node watcher/build.mjs) failed with exit ${built.status}: ${built.stderr.trim()}`,
        );
      }
    }
    const asset = new ecrAssets.DockerImageAsset(scope, 'WatcherImage', {
      directory: context,
      platform:
        this.architecture === 'arm64' ? ecrAssets.Platform.LINUX_ARM64 : ecrAssets.Platform.LINUX_AMD64,
    });
    return asset.imageUri;
  }
}
