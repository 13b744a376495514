import { describe, expect, it } from 'vitest';
import { LABEL_CAPACITY_TYPE } from '../../../shared/core/model/labels';
import { Requirements } from '../../../shared/core/model/requirements';
import { efficientOptions } from '../../../shared/core/scheduling/instance-selection';
import { cheapestOffering } from '../../../shared/core/scheduling/nodepool-context';
import { instanceTypes } from './fixtures';

describe('efficientOptions', () => {
  it('prices each type under the requirements it is given, however often it was priced before', () => {
    const names = new Set([
      'm5.large',
      'c5.large',
      'r5.large',
      't3.large',
      'm6g.large',
      'c6g.large',
      'm5.xlarge',
    ]);
    const types = instanceTypes.filter((it) => names.has(it.name));
    // No type in the catalog has a reserved offering: under this requirement none is priced.
    const reserved = Requirements.from([{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['reserved'] }]);
    const onDemand = Requirements.from([{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] }]);
    const average = { cpu: 500, memory: 512 * 2 ** 20, pods: 1 };
    // The answer from first principles: cost per average pod within 10 % of the best.
    const expected = (requirements: Requirements) => {
      const scored = types.flatMap((it) => {
        const price = cheapestOffering(it, requirements)?.price;
        if (price === undefined) return [];
        const pods = Math.min(
          it.allocatable.cpu / average.cpu,
          it.allocatable.memory / average.memory,
          it.allocatable.pods / average.pods,
        );
        return [{ name: it.name, cost: price / pods }];
      });
      const best = Math.min(...scored.map((s) => s.cost));
      return scored.filter((s) => s.cost <= best * 1.1).map((s) => s.name);
    };
    const names1 = (rs: Requirements) => efficientOptions(types, rs, {}, average).map((it) => it.name);
    expect(expected(reserved)).toEqual([]);
    expect(names1(onDemand)).toEqual(expected(onDemand));
    // With nothing priced, every type stays an option.
    expect(names1(reserved)).toEqual(types.map((it) => it.name));
    expect(names1(onDemand)).toEqual(expected(onDemand));
  });
});
