import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidationError, ValidationError } from '../../../shared/core/model/errors';
import {
  formatQuantity,
  isQuantity,
  parseQuantity,
  parseQuantityMilli,
  resourceValue,
} from '../../../shared/core/model/quantity';

const Ki = 1024n;

describe('parseQuantity', () => {
  it.each<[string, bigint]>([
    // decimal SI suffixes
    ['1', 1n],
    ['1k', 1000n],
    ['1M', 10n ** 6n],
    ['1G', 10n ** 9n],
    ['1T', 10n ** 12n],
    ['1P', 10n ** 15n],
    ['1E', 10n ** 18n],
    // binary SI suffixes
    ['1Ki', Ki],
    ['1Mi', Ki ** 2n],
    ['1Gi', Ki ** 3n],
    ['1Ti', Ki ** 4n],
    ['1Pi', Ki ** 5n],
    ['1Ei', Ki ** 6n],
    ['1.5Gi', (3n * Ki ** 3n) / 2n],
    // decimal exponents
    ['1e3', 1000n],
    ['1E3', 1000n],
    ['5e+2', 500n],
    ['100E-2', 1n],
    // signs and bare fractions
    ['+2', 2n],
    ['-2', -2n],
    ['.5k', 500n],
    ['1.', 1n],
    ['0', 0n],
  ])('%s = %s', (text, expected) => {
    expect(parseQuantity(text)).toBe(expected);
  });

  it.each<[string, bigint]>([
    ['1m', 1n],
    ['1n', 1n],
    ['1u', 1n],
    ['0.1', 1n],
    ['1001m', 2n],
    ['1.0000001', 2n],
    ['2e-1', 1n],
    ['-1.5', -2n],
    ['-1m', -1n],
  ])('rounds %s away from zero to %s, as Quantity.Value()', (text, expected) => {
    expect(parseQuantity(text)).toBe(expected);
  });
});

describe('parseQuantityMilli', () => {
  it.each<[string, bigint]>([
    ['1', 1000n],
    ['500m', 500n],
    ['0.5', 500n],
    ['.25', 250n],
    ['1.5', 1500n],
    ['2k', 2_000_000n],
    ['1Ki', 1_024_000n],
    ['1e-3', 1n],
    // below a milli-unit rounds up, as Quantity.MilliValue()
    ['1u', 1n],
    ['1n', 1n],
    ['1500u', 2n],
    ['0.0001', 1n],
    ['-500m', -500n],
    ['-1.5', -1500n],
    ['-1500u', -2n],
  ])('%s = %sm', (text, expected) => {
    expect(parseQuantityMilli(text)).toBe(expected);
  });
});

describe('garbage', () => {
  it.each([
    '',
    ' ',
    '1.2.3',
    'Mi',
    '1 Gi',
    '1gi',
    '1mi',
    '1KI',
    'abc',
    '1e',
    '--1',
    '1Gi1',
    '0x10',
    '1,5',
    '∞',
  ])('rejects %j', (text) => {
    expect(isQuantity(text)).toBe(false);
    expect(() => parseQuantity(text)).toThrow(ValidationError);
    expect(() => parseQuantityMilli(text)).toThrow(/not a Kubernetes quantity/);
    let error: unknown;
    try {
      parseQuantityMilli(text);
    } catch (e) {
      error = e;
    }
    expect(isValidationError(error)).toBe(true);
  });

  it('rejects non-strings', () => {
    expect(isQuantity(5)).toBe(false);
    expect(isQuantity(undefined)).toBe(false);
  });
});

describe('resourceValue', () => {
  it.each<[string, string | number, number]>([
    ['cpu', '500m', 500],
    ['cpu', '2', 2000],
    ['cpu', 2, 2000],
    ['cpu', 0.5, 500],
    ['memory', '1Gi', 1024 ** 3],
    ['memory', '1G', 1e9],
    ['memory', '129M', 129e6],
    ['memory', 1024, 1024],
    ['ephemeral-storage', '20Gi', 20 * 1024 ** 3],
    ['pods', '110', 110],
    ['nvidia.com/gpu', 1, 1],
  ])('%s %j = %d', (name, quantity, expected) => {
    expect(resourceValue(name, quantity)).toBe(expected);
  });

  it('rejects values beyond exact integer range', () => {
    expect(() => resourceValue('memory', '9Ei')).toThrow(/too large/);
  });

  it('gives the same text the same value however often it is asked, by unit, and never remembers a bad one', () => {
    for (let i = 0; i < 3; i++) {
      expect(resourceValue('cpu', '3')).toBe(3000);
      expect(resourceValue('pods', '3')).toBe(3);
      expect(resourceValue('memory', '3')).toBe(3);
      expect(() => resourceValue('cpu', '3 cores')).toThrow(/not a Kubernetes quantity/);
      expect(() => resourceValue('memory', '9Ei')).toThrow(/too large/);
    }
    // Past its bound the memory starts over, still answering right.
    for (let i = 0; i < 5000; i++) expect(resourceValue('memory', `${i}Ki`)).toBe(i * 1024);
    expect(resourceValue('cpu', '3')).toBe(3000);
  });
});

describe('formatQuantity', () => {
  it.each<[string, number, string]>([
    ['cpu', 1500, '1500m'],
    ['cpu', 2000, '2'],
    ['cpu', 0, '0'],
    ['memory', 1024 ** 3, '1Gi'],
    ['memory', 512 * 1024 ** 2, '512Mi'],
    ['memory', 1000, '1000'],
    ['memory', 0, '0'],
    ['ephemeral-storage', 20 * 1024 ** 3, '20Gi'],
    ['pods', 110, '110'],
  ])('%s %d → %s', (name, value, expected) => {
    expect(formatQuantity(name, value)).toBe(expected);
  });

  it('round-trips through resourceValue for every resource kind', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'pods', 'nvidia.com/gpu'),
        fc.oneof(
          fc.nat({ max: Number.MAX_SAFE_INTEGER }),
          // multiples of powers of 1024 and 1000, where the suffixes kick in
          fc
            .tuple(fc.nat({ max: 4096 }), fc.constantFrom(1000, 1024, 1024 ** 2, 1024 ** 3, 1024 ** 4))
            .map(([n, f]) => n * f),
        ),
        (name, value) => {
          const text = formatQuantity(name, value);
          expect(isQuantity(text)).toBe(true);
          expect(resourceValue(name, text)).toBe(value);
        },
      ),
    );
  });
});
