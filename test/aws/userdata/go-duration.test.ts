import { describe, expect, it } from 'vitest';
import { goDurationString } from '../../../shared/aws/userdata/go-duration';
import { isValidationError } from '../../../shared/core/model/errors';

describe('goDurationString (Go time.ParseDuration then Duration.String)', () => {
  it.each([
    ['0', '0s'],
    ['0s', '0s'],
    ['90s', '1m30s'],
    ['1m30s', '1m30s'],
    ['2m', '2m0s'],
    ['1h', '1h0m0s'],
    ['1.5h', '1h30m0s'],
    ['36h', '36h0m0s'],
    ['1.5s', '1.5s'],
    ['61.25s', '1m1.25s'],
    ['500ms', '500ms'],
    ['1500ms', '1.5s'],
    ['1.5ms', '1.5ms'],
    ['250us', '250µs'],
    ['250µs', '250µs'],
    ['42ns', '42ns'],
    ['1h1m1s1ms', '1h1m1.001s'],
    ['-90s', '-1m30s'],
    ['+5m', '5m0s'],
    ['.5s', '500ms'],
  ])('%s is written %s', (input, expected) => {
    expect(goDurationString(input, 'f')).toBe(expected);
  });

  it('refuses what Go refuses, naming the field', () => {
    for (const bad of ['', '5', '1d', 's', '.s', '1m-5s', '-']) {
      let error: unknown;
      try {
        goDurationString(bad, 'spec.kubelet.evictionSoftGracePeriod.memory.available');
      } catch (e) {
        error = e;
      }
      expect({ bad, validation: isValidationError(error) }).toEqual({ bad, validation: true });
      expect(String(error)).toContain('spec.kubelet.evictionSoftGracePeriod.memory.available');
    }
  });
});
