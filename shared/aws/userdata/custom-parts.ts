import { type BootstrapOptions, invalidUserData } from './bootstrap-options';
import { looksLikeMimeArchive, type MimePart, parseMimeArchive } from './mime-archive';

/**
 * The parts the EC2NodeClass's userData contributes to a merged archive: none when it is
 * empty, its own parts (headers kept) when it is a MIME archive, else the one part `bare`
 * makes of it.
 *
 * @throws ValidationError naming the EC2NodeClass and spec.userData when its MIME is invalid
 */
export function customUserDataParts(
  options: BootstrapOptions,
  bare: (userData: string) => MimePart,
): MimePart[] {
  const userData = options.customUserData;
  if (userData === undefined || userData.trim() === '') return [];
  if (!looksLikeMimeArchive(userData)) return [bare(userData)];
  const archive = parseMimeArchive(userData);
  if (!archive.ok) throw invalidUserData(options, `not a valid MIME multipart archive: ${archive.reason}`);
  return [...archive.parts];
}
