import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWatcherConfig, WATCHER_ENVIRONMENT } from '../../watcher/config';
import { type KubeObject, manifestObject, readKustomization } from './manifests';

/** The watcher Deployment: one small, locked-down replica configured from a generated ConfigMap. */

interface Probe {
  readonly httpGet: { readonly path: string; readonly port: string | number };
}

interface Container {
  readonly name: string;
  readonly image: string;
  readonly ports: readonly { readonly name: string; readonly containerPort: number }[];
  readonly env: readonly {
    readonly name: string;
    readonly value?: string;
    readonly valueFrom?: { readonly configMapKeyRef?: { readonly name: string; readonly key: string } };
  }[];
  readonly resources: {
    readonly requests: Readonly<Record<string, string>>;
    readonly limits: Readonly<Record<string, string>>;
  };
  readonly livenessProbe: Probe;
  readonly readinessProbe: Probe;
  readonly securityContext: Readonly<Record<string, unknown>>;
}

interface Deployment extends KubeObject {
  readonly spec: {
    readonly replicas: number;
    readonly selector: { readonly matchLabels: Readonly<Record<string, string>> };
    readonly template: {
      readonly metadata: { readonly labels: Readonly<Record<string, string>> };
      readonly spec: {
        readonly serviceAccountName: string;
        readonly securityContext: Readonly<Record<string, unknown>>;
        readonly containers: readonly Container[];
      };
    };
  };
}

const deployment = manifestObject<Deployment>('Deployment', 'podlift-watcher', 'podlift');
const pod = deployment.spec.template.spec;
const [container] = pod.containers;

/** The port a probe targets, by number, resolving a named port. */
function probePort(probe: Probe): number | undefined {
  const port = probe.httpGet.port;
  return typeof port === 'number' ? port : container.ports.find((p) => p.name === port)?.containerPort;
}

describe('the watcher Deployment', () => {
  it('runs one replica of one container, as the watcher ServiceAccount', () => {
    expect(deployment.spec.replicas).toBe(1);
    expect(pod.containers).toHaveLength(1);
    expect(pod.serviceAccountName).toBe('podlift-watcher');
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
  });

  it("names the watcher image by this release's version, never latest, in the Deployment and kustomization.yaml", () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(container.image).toBe(`podlift/watcher:${version}`);
    expect(readKustomization().images).toContainEqual({
      name: 'podlift/watcher',
      newName: 'podlift/watcher',
      newTag: version,
    });
  });

  it('requests 50m cpu and 160Mi, and is limited to 384Mi of memory (no cpu limit)', () => {
    expect(container.resources).toEqual({
      requests: { cpu: '50m', memory: '160Mi' },
      limits: { memory: '384Mi' },
    });
  });

  it('runs as non-root user 65532 with the RuntimeDefault seccomp profile', () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it('has a read-only root file system, no privilege escalation and no capabilities', () => {
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).not.toHaveProperty('privileged', true);
    expect(container.securityContext).not.toHaveProperty('capabilities.add');
  });

  it('is probed on /healthz (liveness) and /readyz (readiness) on port 8080', () => {
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(probePort(container.livenessProbe)).toBe(8080);
    expect(probePort(container.readinessProbe)).toBe(8080);
  });

  it('takes every variable the watcher reads from the generated podlift-watcher ConfigMap', () => {
    const names = [
      'CLUSTER_NAME',
      'EVENT_BUS_NAME',
      'AWS_REGION',
      'BATCH_IDLE_MS',
      'BATCH_MAX_MS',
      'PODS_PENDING_MAX_MS',
      'PORT',
    ];
    const fromConfigMap = container.env.filter((e) => e.valueFrom !== undefined);
    expect(fromConfigMap.map((e) => e.name)).toEqual(names);
    for (const e of fromConfigMap) {
      expect(e.valueFrom?.configMapKeyRef).toEqual({ name: 'podlift-watcher', key: e.name });
    }
    expect(Object.keys(configMapLiterals()).sort()).toEqual([...names].sort());
  });

  it("caps Node's heap well under the memory limit, with room for what lives outside the heap", () => {
    const heapFlag = /--max-old-space-size=(\d+)/.exec(
      container.env.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '',
    );
    expect(heapFlag).not.toBeNull();
    const heapMiB = Number(heapFlag?.[1]);
    const mebibytes = (quantity: string | undefined) => Number(/^(\d+)Mi$/.exec(quantity ?? '')?.[1]);
    // Measured: ~110 MiB of RSS besides the V8 heap, and 54 MiB of heap at the peak of a
    // 50,000-pod list (npm run bench -- --parts footprint --watcher-pods 50000).
    expect(heapMiB).toBeGreaterThanOrEqual(2 * 54);
    expect(mebibytes(container.resources.limits.memory)).toBeGreaterThanOrEqual(heapMiB + 192);
    expect(mebibytes(container.resources.requests.memory)).toBeLessThanOrEqual(
      mebibytes(container.resources.limits.memory),
    );
  });

  it("configures every variable of the watcher's environment except those Kubernetes sets", () => {
    const configured = new Set(container.env.map((e) => e.name));
    const unset = Object.keys(WATCHER_ENVIRONMENT).filter(
      (name) => !configured.has(name) && !name.startsWith('KUBERNETES_'),
    );
    expect(unset).toEqual([]);
  });

  it('sets the defaults the watcher documents, and a PORT the container port and probes agree with', () => {
    const literals = configMapLiterals();
    expect(
      parseWatcherConfig({
        ...literals,
        KUBERNETES_SERVICE_HOST: '10.0.0.1',
        KUBERNETES_SERVICE_PORT: '443',
      }),
    ).toMatchObject({
      batchIdleMs: 1000,
      batchMaxMs: 10_000,
      podsPendingMaxMs: 4000,
      port: 8080,
    });
    expect(container.ports.find((p) => p.name === 'http')?.containerPort).toBe(Number(literals.PORT));
  });
});

/** The literals of the generated podlift-watcher ConfigMap, by key. */
function configMapLiterals(): Record<string, string> {
  const generator = readKustomization().configMapGenerator?.find((g) => g.name === 'podlift-watcher');
  expect(generator?.namespace).toBe('podlift');
  return Object.fromEntries(
    (generator?.literals ?? []).map((literal) => {
      const at = literal.indexOf('=');
      return [literal.slice(0, at), literal.slice(at + 1)];
    }),
  );
}

describe('the podlift namespace', () => {
  it('enforces the restricted Pod Security Standard, which the watcher meets', () => {
    const ns = manifestObject('Namespace', 'podlift');
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});
