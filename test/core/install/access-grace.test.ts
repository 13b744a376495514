import { describe, expect, it } from 'vitest';
import {
  INSTALL_ACCESS_GRACE_MS,
  installFailureVerdict,
  isAccessNotYetHonoured,
} from '../../../shared/core/install/access-grace';
import { CloudError } from '../../../shared/core/model/errors';

const apiError = (code: string) => new CloudError(`applying v1 Namespace podlift: ${code}: x`, code, false);
const connection = (code: string) =>
  new CloudError(
    `applying v1 Namespace podlift: request failed, reason: connect ${code} 127.0.0.1:443`,
    undefined,
    true,
  );

describe('isAccessNotYetHonoured', () => {
  it.each(['Unauthorized', 'Forbidden', '401', '403'])('holds for the API server answering %s', (code) => {
    expect(isAccessNotYetHonoured(apiError(code))).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])('holds for an endpoint failing with %s', (code) => {
    expect(isAccessNotYetHonoured(connection(code))).toBe(true);
  });

  it.each(['NotFound', 'Conflict', 'InternalError', '500'])('does not hold for %s', (code) => {
    expect(isAccessNotYetHonoured(apiError(code))).toBe(false);
  });

  it('does not hold for a reset connection, an error without a code or a non-error', () => {
    expect(isAccessNotYetHonoured(connection('ECONNRESET'))).toBe(false);
    expect(isAccessNotYetHonoured(new CloudError('x', undefined, true))).toBe(false);
    expect(isAccessNotYetHonoured('ECONNREFUSED')).toBe(false);
  });
});

describe('installFailureVerdict', () => {
  const start = 1_000_000;

  it('waits on a refusal until the grace window has passed, then fails', () => {
    expect(installFailureVerdict(apiError('Forbidden'), start, start)).toBe('wait');
    expect(installFailureVerdict(apiError('Forbidden'), start, start + INSTALL_ACCESS_GRACE_MS - 1)).toBe(
      'wait',
    );
    expect(installFailureVerdict(apiError('Forbidden'), start, start + INSTALL_ACCESS_GRACE_MS)).toBe('fail');
  });

  it('fails at once on any other error', () => {
    expect(installFailureVerdict(apiError('InternalError'), start, start)).toBe('fail');
  });

  it('gives five minutes of grace', () => {
    expect(INSTALL_ACCESS_GRACE_MS).toBe(300_000);
  });
});
