import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { clusterObjects } from '../state-load/cluster-objects';

/**
 * The API server side of the watcher footprint bench, in a process of its own: seeds
 * `{ nodes, podsPerNode }` (argv[2], JSON) with pods as full as an EKS API server returns them
 * (fake pods are otherwise a fifth of the size, which would flatter the watcher's list pages),
 * prints `READY <url> <average pod bytes>` and serves until its stdin closes.
 */
async function main(): Promise<void> {
  const { nodes, podsPerNode } = JSON.parse(process.argv[2] ?? '') as { nodes: number; podsPerNode: number };
  const server = await startFakeKubeApiServer({ maintainDisruptionBudgetStatus: false });
  let podBytes = 0;
  let pods = 0;
  for (const [resource, object] of clusterObjects({ nodes, podsPerNode, pendingPods: 0 })) {
    const seeded = resource === 'pods' ? asServed(object as PodLike) : object;
    if (resource === 'pods') {
      podBytes += JSON.stringify(seeded).length;
      pods++;
    }
    server.store.seed(resource, seeded);
  }
  process.stdout.write(`READY ${server.url} ${Math.round(podBytes / Math.max(1, pods))}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
}

interface PodLike {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: object };
  readonly spec: { readonly containers: readonly object[]; readonly nodeName?: string };
  readonly status?: object;
}

/**
 * A pod with what a real one carries besides its spec: the server-side-apply managedFields of
 * the ReplicaSet controller, kubelet and scheduler, the usual annotations and labels, a service
 * account token volume, environment, probes and container statuses (about 5 KB of JSON, like a
 * typical Deployment pod listed from EKS).
 */
function asServed(pod: PodLike): object {
  const time = '2026-11-01T00:00:00Z';
  const fields = (manager: string, operation: string, keys: number) => ({
    manager,
    operation,
    apiVersion: 'v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: Object.fromEntries(
      Array.from({ length: keys }, (_, i) => [`f:field${i}`, { 'f:nested': {}, '.': {} }]),
    ),
  });
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      generateName: `${pod.metadata.name.replace(/-\d+$/, '')}-7d9f8b6c5-`,
      labels: {
        ...pod.metadata.labels,
        'pod-template-hash': '7d9f8b6c5',
        'app.kubernetes.io/version': '1.4.2',
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': time,
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
      },
      managedFields: [
        fields('kube-controller-manager', 'Update', 24),
        fields('kubelet', 'Update', 18),
        fields('kube-scheduler', 'Update', 4),
      ],
    },
    spec: {
      ...pod.spec,
      containers: pod.spec.containers.map((c) => ({
        ...c,
        env: Array.from({ length: 8 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}` })),
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        readinessProbe: { httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: 10 },
        volumeMounts: [
          {
            name: 'kube-api-access-x7k2p',
            readOnly: true,
            mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
          },
        ],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      })),
      volumes: [
        {
          name: 'kube-api-access-x7k2p',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
    },
    status: {
      ...pod.status,
      hostIP: '10.0.12.34',
      podIP: '10.0.45.67',
      podIPs: [{ ip: '10.0.45.67' }],
      startTime: time,
      qosClass: 'Burstable',
      containerStatuses: pod.spec.containers.map((c) => ({
        name: (c as { name: string }).name,
        ready: true,
        restartCount: 0,
        started: true,
        image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.9',
        imageID:
          'public.ecr.aws/eks-distro/kubernetes/pause@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        containerID: 'containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        state: { running: { startedAt: time } },
        lastState: {},
      })),
    },
  };
}

await main();
