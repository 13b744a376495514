import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SSMClient } from '@aws-sdk/client-ssm';
import { KubeConfig } from '@kubernetes/client-node';
import { sdkClientConfig } from '../shared/aws/sdk-client-config';
import { renderKustomization } from '../shared/yaml/kustomize-render';
import type { InstallCommandTools } from './install';

/**
 * The process side of `podlift install`: manifests/ of this checkout, the kubeconfig as kubectl
 * picks it, an SSM client, real sleeps.
 */
export function processInstallTools(): Pick<
  InstallCommandTools,
  'manifests' | 'kubeConfig' | 'ssm' | 'sleep' | 'now'
> {
  return {
    manifests: () => {
      const dir = manifestsDir();
      return renderKustomization((file) => readFileSync(join(dir, file), 'utf8'));
    },
    kubeConfig: ({ kubeconfig, context }) => {
      const config = new KubeConfig();
      if (kubeconfig) config.loadFromFile(kubeconfig);
      else config.loadFromDefault();
      if (context) config.setCurrentContext(context);
      return config;
    },
    ssm: (region) => new SSMClient(sdkClientConfig({ region })),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
}

/** manifests/ of the checkout this CLI runs from (sources in cli/, or the bundle in dist/cli/). */
function manifestsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'manifests');
    if (existsSync(join(candidate, 'kustomization.yaml'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("podlift install: cannot find podlift's manifests/ beside the CLI");
    dir = parent;
  }
}
