import type { AmiFamily } from '../../core/model/ec2nodeclass';
import { ValidationError } from '../../core/model/errors';
import type { BootstrapOptions } from './bootstrap-options';
import { bottlerocketUserData } from './bottlerocket';
import { eksBootstrapUserData } from './eks-bootstrap';
import { nodeadmUserData } from './nodeadm';

/**
 * The user data a node of `family` boots with, as plain text:
 * - AL2023: nodeadm NodeConfig in a MIME archive, merged with the EC2NodeClass's userData;
 * - AL2: bootstrap.sh in a MIME archive, merged likewise;
 * - Bottlerocket: TOML settings merged into the EC2NodeClass's TOML;
 * - Custom: the EC2NodeClass's userData exactly as given (kOps and other bootstrappers), or
 *   undefined when it has none.
 *
 * @throws ValidationError naming the EC2NodeClass and the field: spec.userData when it cannot be
 *   merged, spec.amiFamily for the Windows families, which podlift does not bootstrap yet
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
      throw new ValidationError(
        [
          {
            field: 'spec.amiFamily',
            value: family,
            message: 'podlift does not generate Windows user data yet',
          },
        ],
        { object: `EC2NodeClass/${options.nodeClassName}` },
      );
  }
}

/** {@link userDataText} base64-encoded, as a launch template's UserData takes it. */
export function userDataBase64(family: AmiFamily, options: BootstrapOptions): string | undefined {
  const text = userDataText(family, options);
  return text === undefined ? undefined : Buffer.from(text, 'utf8').toString('base64');
}
