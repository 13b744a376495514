import type { AmiFamily } from '../../core/model/ec2nodeclass';
import { ValidationError } from '../../core/model/errors';
import type { BootstrapOptions } from './bootstrap-options';
import { bottlerocketUserData } from './bottlerocket';
import { eksBootstrapUserData } from './eks-bootstrap';
import { nodeadmUserData } from './nodeadm';
import { windowsUserData } from './windows';

/**
 * The user data a node of `family` boots with, as plain text:
 * - AL2023: nodeadm NodeConfig in a MIME archive, merged with the EC2NodeClass's userData;
 * - AL2: bootstrap.sh in a MIME archive, merged likewise;
 * - Bottlerocket: TOML settings merged into the EC2NodeClass's TOML;
 * - Windows2019/2022/2025: a PowerShell script running the EC2NodeClass's userData, then
 *   Start-EKSBootstrap.ps1;
 * - Custom: the EC2NodeClass's userData exactly as given (kOps and other bootstrappers), or
 *   undefined when it has none.
 *
 * @throws ValidationError naming the EC2NodeClass and spec.userData when it cannot be merged
 */
export function userDataText(family: AmiFamily, options: BootstrapOptions): string | undefined {
  switch (family) {
    case 'AL2023':
      return nodeadmUserData(options);
    case 'AL2':
      return eksBootstrapUserData(options);
    case 'Bottlerocket':
      return bottlerocketUserData(options);
    case 'Custom':
      return options.customUserData;
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return windowsUserData(options);
  }
}

/**
 * EC2's limit on user data: 16 KB in raw form, before base64 encoding (EC2 user guide, "Work
 * with instance user data"); CreateLaunchTemplate refuses more with InvalidUserData.Malformed
 * "User data is limited to 16384 bytes".
 */
export const USER_DATA_LIMIT_BYTES = 16_384;

/**
 * {@link userDataText} base64-encoded, as a launch template's UserData takes it.
 *
 * @throws ValidationError naming the EC2NodeClass and spec.userData when the user data is over
 *   EC2's 16 KB, so the cause is plain before any launch template is attempted (Karpenter
 *   leaves it to CreateLaunchTemplate to refuse)
 */
export function userDataBase64(family: AmiFamily, options: BootstrapOptions): string | undefined {
  const text = userDataText(family, options);
  if (text === undefined) return undefined;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > USER_DATA_LIMIT_BYTES) {
    const rendered = family === 'Custom' ? 'user data' : `${family} user data rendered from it`;
    throw new ValidationError(
      [
        {
          field: 'spec.userData',
          value: `${bytes.length} bytes`,
          message: `the ${rendered} is over EC2's limit of ${USER_DATA_LIMIT_BYTES} bytes (before base64)`,
        },
      ],
      { object: `EC2NodeClass/${options.nodeClassName}` },
    );
  }
  return bytes.toString('base64');
}
