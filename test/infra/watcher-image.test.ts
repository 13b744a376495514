import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WatcherImage } from '../../infra/parts/watcher-image';
import { removeTestApps, synthStack, testApp } from './test-app';

afterAll(removeTestApps);

describe('the watcher image', () => {
  it('is a Docker image asset built from watcher/Dockerfile at deploy time, never at synth', () => {
    const app = testApp();
    const { template } = synthStack({ watcherImage: WatcherImage.fromBuild() }, { app });
    const assets = JSON.parse(readFileSync(join(app.outdir, 'Podlift-demo.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; platform?: string } }>;
    };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(1);
    expect(images[0].source.platform).toBe('linux/amd64');
    // Synth only stages the build context (the Dockerfile, and main.mjs when bundling); no image is built.
    const context = join(app.outdir, images[0].source.directory);
    expect(readFileSync(join(context, 'Dockerfile'), 'utf8')).toBe(
      readFileSync(new URL('../../watcher/Dockerfile', import.meta.url), 'utf8'),
    );
    expect(existsSync(join(context, 'main.mjs'))).toBe(false);
    const uri = JSON.stringify(template.findOutputs('WatcherImageUri').WatcherImageUri.Value);
    expect(uri).toContain('container-assets');
  });

  it('builds for arm64 nodes when asked', () => {
    const app = testApp();
    synthStack({ watcherImage: WatcherImage.fromBuild({ architecture: 'arm64' }) }, { app });
    const assets = JSON.parse(readFileSync(join(app.outdir, 'Podlift-demo.assets.json'), 'utf8'));
    expect(
      Object.values(assets.dockerImages as Record<string, { source: { platform: string } }>)[0].source
        .platform,
    ).toBe('linux/arm64');
  });

  it('uses a given image as is, with no asset', () => {
    const app = testApp();
    const { template } = synthStack({}, { app });
    const assets = JSON.parse(readFileSync(join(app.outdir, 'Podlift-demo.assets.json'), 'utf8'));
    expect(assets.dockerImages).toEqual({});
    expect(template.findOutputs('WatcherImageUri').WatcherImageUri.Value).toBe(
      'public.ecr.aws/example/podlift-watcher:1.0.0',
    );
  });
});
