import { describe, expect, it } from 'vitest';
import { podClasses } from '../../../shared/core/bound/bound-input';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../../../shared/core/model/labels';
import { pod } from '../../../sim/world/builders';

describe('podClasses', () => {
  const size = { cpu: '500m', memory: '1Gi' };
  const repel = (topologyKey: string, app = 'web') => [
    { labelSelector: { matchLabels: { app } }, topologyKey },
  ];

  it('gives pods that repel their own kind by hostname a class of one pod per node', () => {
    const classes = podClasses([
      ...[0, 1, 2].map((i) =>
        pod({ name: `web-${i}`, labels: { app: 'web' }, podAntiAffinity: repel(LABEL_HOSTNAME), ...size }),
      ),
      pod({ name: 'plain', ...size }),
    ]);
    expect(classes).toHaveLength(2);
    expect(classes.find((c) => c.apart !== undefined)?.count).toBe(3);
    expect(classes.find((c) => c.apart === undefined)?.count).toBe(1);
  });

  it('keeps pods of different sizes that repel each other in one apart group', () => {
    const classes = podClasses([
      pod({
        name: 'a',
        labels: { app: 'web' },
        podAntiAffinity: repel(LABEL_HOSTNAME),
        cpu: '1',
        memory: '1Gi',
      }),
      pod({ name: 'b', labels: { app: 'web' }, podAntiAffinity: repel(LABEL_HOSTNAME), ...size }),
      pod({ name: 'c', labels: { app: 'api' }, podAntiAffinity: repel(LABEL_HOSTNAME, 'api'), ...size }),
    ]);
    expect(classes).toHaveLength(3);
    expect(classes[0].apart).toBeDefined();
    expect(classes[1].apart).toBe(classes[0].apart);
    expect(classes[2].apart).not.toBe(classes[0].apart);
  });

  it('leaves the cap off when the rule does not keep two such pods apart on a node', () => {
    const classes = podClasses([
      // zonal anti-affinity, and a selector that does not match the pod's own labels
      pod({ name: 'z', labels: { app: 'web' }, podAntiAffinity: repel(LABEL_ZONE), ...size }),
      pod({ name: 'o', labels: { app: 'web' }, podAntiAffinity: repel(LABEL_HOSTNAME, 'db'), ...size }),
    ]);
    expect(classes.map((c) => c.apart)).toEqual([undefined]);
    expect(classes[0].count).toBe(2);
  });
});
