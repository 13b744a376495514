import { describe, expect, it } from 'vitest';
import { nodeadmUserData } from '../../../shared/aws/userdata/nodeadm';
import { userDataBase64, userDataText } from '../../../shared/aws/userdata/user-data';
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

  it('refuses the Windows families with an error naming the EC2NodeClass and spec.amiFamily', () => {
    let error: unknown;
    try {
      userDataText(
        'Windows2022',
        bootstrap({ nodeClass: nodeClass({ name: 'win', amiFamily: 'Windows2022' }) }),
      );
    } catch (e) {
      error = e;
    }
    expect(isValidationError(error)).toBe(true);
    expect(String((error as Error).message)).toBe(
      'EC2NodeClass/win: spec.amiFamily: podlift does not generate Windows user data yet (got "Windows2022")',
    );
  });
});
