import { describe, expect, it } from 'vitest';
import { nodeadmUserData } from '../../../shared/aws/userdata/nodeadm';
import { USER_DATA_LIMIT_BYTES, userDataBase64 } from '../../../shared/aws/userdata/user-data';
import { windowsUserData } from '../../../shared/aws/userdata/windows';
import { isValidationError } from '../../../shared/core/model/errors';
import { nodeClass } from '../../../sim/world/builders';
import { bootstrap, decode } from './fixtures';

describe('userDataBase64', () => {
  it('passes a Custom family userData through unchanged (kOps bootstraps its own nodes)', () => {
    const kops = '#!/bin/bash\n# kOps nodeup\nNODEUP_URL=https://example.com/nodeup\n';
    const options = bootstrap({ nodeClass: nodeClass({ amiFamily: 'Custom', userData: kops }) });
    expect(decode(userDataBase64('Custom', options))).toBe(kops);
  });

  it('gives no user data for a Custom family without userData', () => {
    expect(
      userDataBase64('Custom', bootstrap({ nodeClass: nodeClass({ amiFamily: 'Custom' }) })),
    ).toBeUndefined();
  });

  it('encodes the family’s merged user data', () => {
    const options = bootstrap();
    expect(decode(userDataBase64('AL2023', options))).toBe(nodeadmUserData(options));
    expect(decode(userDataBase64('Bottlerocket', options))).toContain('[settings.kubernetes]');
    expect(decode(userDataBase64('AL2', options))).toContain('/etc/eks/bootstrap.sh');
  });

  it("refuses user data over EC2's 16 KB before base64, naming the EC2NodeClass and spec.userData", () => {
    expect(USER_DATA_LIMIT_BYTES).toBe(16_384);
    const fits = 'x'.repeat(USER_DATA_LIMIT_BYTES);
    const custom = (userData: string) =>
      bootstrap({ nodeClass: nodeClass({ name: 'kops', amiFamily: 'Custom', userData }) });
    expect(decode(userDataBase64('Custom', custom(fits)))).toBe(fits);
    // Bytes, not characters: 5,462 three-byte characters are 16,386 bytes.
    expect(() => userDataBase64('Custom', custom('€'.repeat(5462)))).toThrow(
      `EC2NodeClass/kops: spec.userData: the user data is over EC2's limit of 16384 bytes (before base64) (got "16386 bytes")`,
    );
    // What podlift adds counts too: user data just under the limit no longer fits once merged.
    const merged = bootstrap({ nodeClass: nodeClass({ userData: `#!/bin/bash\n#${'x'.repeat(16_300)}\n` }) });
    let error: unknown;
    try {
      userDataBase64('AL2023', merged);
    } catch (e) {
      error = e;
    }
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toMatch(
      /EC2NodeClass\/default: spec\.userData: the AL2023 user data rendered from it is over EC2's limit of 16384 bytes \(before base64\) \(got "\d+ bytes"\)/,
    );
  });

  it('gives every Windows family the Start-EKSBootstrap PowerShell script', () => {
    for (const family of ['Windows2019', 'Windows2022', 'Windows2025'] as const) {
      const options = bootstrap({ nodeClass: nodeClass({ name: 'win', amiFamily: family }) });
      expect(decode(userDataBase64(family, options))).toBe(windowsUserData(options));
    }
  });
});
