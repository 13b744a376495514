import { describe, expect, it } from 'vitest';
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

  it('uses the documented image placeholder, which kustomization.yaml can replace', () => {
    expect(container.image).toBe('podlift/watcher:latest');
    expect(readKustomization().images).toContainEqual(expect.objectContaining({ name: 'podlift/watcher' }));
  });

  it('requests 50m cpu and 128Mi, and is limited to 256Mi of memory (no cpu limit)', () => {
    expect(container.resources).toEqual({
      requests: { cpu: '50m', memory: '128Mi' },
      limits: { memory: '256Mi' },
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

  it('takes CLUSTER_NAME, EVENT_BUS_NAME and AWS_REGION from the generated podlift-watcher ConfigMap', () => {
    const names = ['CLUSTER_NAME', 'EVENT_BUS_NAME', 'AWS_REGION'];
    expect(container.env.map((e) => e.name)).toEqual(names);
    for (const e of container.env) {
      expect(e.valueFrom?.configMapKeyRef).toEqual({ name: 'podlift-watcher', key: e.name });
    }
    const generator = readKustomization().configMapGenerator?.find((g) => g.name === 'podlift-watcher');
    expect(generator?.namespace).toBe('podlift');
    const keys = (generator?.literals ?? []).map((l) => l.split('=')[0]);
    expect(keys.sort()).toEqual([...names].sort());
  });
});

describe('the podlift namespace', () => {
  it('enforces the restricted Pod Security Standard, which the watcher meets', () => {
    const ns = manifestObject('Namespace', 'podlift');
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});
