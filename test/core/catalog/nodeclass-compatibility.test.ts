import { describe, expect, it } from 'vitest';
import { loadBundledCatalog } from '../../../shared/core/catalog/bundled';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import { LABEL_INSTANCE_TENANCY } from '../../../shared/core/model/labels';
import { nodeClass } from '../../../sim/world/builders';

/**
 * Instance types an EC2NodeClass's launch settings rule out, as Karpenter's
 * IsCompatibleWithNodeClass does, over the real us-east-1 catalog.
 */

const catalog = loadBundledCatalog('us-east-1');
const names = (nc: Parameters<typeof resolveInstanceTypes>[1]) =>
  new Set(resolveInstanceTypes(catalog, nc).map((it) => it.name));

describe('instance types for an EC2NodeClass', () => {
  it('are Nitro types only when it sets connectionTracking', () => {
    const all = names(nodeClass());
    const nitro = names({ ...nodeClass(), connectionTracking: { udpTimeout: 30 } });
    expect(all.has('m4.large')).toBe(true);
    expect(nitro.has('m4.large')).toBe(false);
    expect(nitro.has('m5.large')).toBe(true);
    for (const it of resolveInstanceTypes(catalog, {
      ...nodeClass(),
      connectionTracking: { udpTimeout: 30 },
    })) {
      expect(it.info.hypervisor, it.name).toBe('nitro');
    }
  });

  it('have the EFA interfaces and default-card slots its networkInterfaces use', () => {
    const efa = resolveInstanceTypes(catalog, {
      ...nodeClass(),
      networkInterfaces: [
        { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
        { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' },
      ],
    });
    expect(efa.length).toBeGreaterThan(0);
    expect(efa.every((it) => it.info.efaCount >= 1)).toBe(true);
    expect(efa.map((it) => it.name)).not.toContain('m5.large');
    const manySlots = resolveInstanceTypes(catalog, {
      ...nodeClass(),
      networkInterfaces: [
        { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
        { networkCardIndex: 0, deviceIndex: 3, interfaceType: 'interface' },
      ],
    });
    expect(manySlots.map((it) => it.name)).not.toContain('m5.large'); // 3 interfaces
    expect(manySlots.map((it) => it.name)).toContain('m5.xlarge'); // 4 interfaces
  });

  it('offer default and dedicated tenancy', () => {
    const [first] = resolveInstanceTypes(catalog, nodeClass());
    expect(first?.requirements.get(LABEL_INSTANCE_TENANCY)?.has('dedicated')).toBe(true);
    expect(first?.requirements.get(LABEL_INSTANCE_TENANCY)?.has('default')).toBe(true);
  });
});
