import type {
  ArchitectureValues,
  DescribeImagesCommandInput,
  DescribeImagesCommandOutput,
  Image,
  ImageState,
  PlatformValues,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';
import { type FilterFields, flag } from './filters';
import { filtered, PAGES, page } from './listing';
import { type TagRecord, tagList } from './tags';

/** An AMI to seed. */
export interface ImageSeed {
  /** @default generated */
  readonly id?: string;
  readonly name: string;
  /** @default 'x86_64' */
  readonly architecture?: ArchitectureValues;
  /** ISO 8601 string or Date. */
  readonly creationDate: string | Date;
  /** When the AMI is (or was) deprecated. @default never */
  readonly deprecationTime?: string | Date;
  /**
   * `pending` while EC2 registers or copies it: DescribeImages lists it (it has no filter on
   * state by default) but it cannot launch. @default 'available'
   */
  readonly state?: ImageState;
  /** @default Amazon's account for AMIs with an owner alias of 'amazon', else the fake's account */
  readonly ownerId?: string;
  /** e.g. 'amazon' for public EKS-optimized AMIs. @default none */
  readonly ownerAlias?: string;
  /** @default true when ownerAlias is set */
  readonly public?: boolean;
  readonly description?: string;
  readonly tags?: TagRecord;
  /**
   * `windows` for a Windows AMI (EC2 sets `Platform` only for Windows): it boots from /dev/sda1
   * and the instances launched from it are billed and described as Windows. @default Linux/UNIX
   */
  readonly platform?: 'windows';
}

const AMAZON_OWNER_ID = '137112412989';

const IMAGE_FILTERS: FilterFields<Image> = {
  'image-id': (i) => [i.ImageId],
  name: (i) => [i.Name],
  architecture: (i) => [i.Architecture],
  state: (i) => [i.State],
  'owner-id': (i) => [i.OwnerId],
  'owner-alias': (i) => [i.ImageOwnerAlias],
  'is-public': (i) => [flag(i.Public)],
  'creation-date': (i) => [i.CreationDate],
  description: (i) => [i.Description],
  'image-type': (i) => [i.ImageType],
  'root-device-type': (i) => [i.RootDeviceType],
  'virtualization-type': (i) => [i.VirtualizationType],
  // EC2: "The platform. The only supported value is windows."
  platform: (i) => [i.Platform],
};

/** The AMIs the account can see: its own and public ones such as Amazon's EKS-optimized images. */
export class Ec2Images {
  private readonly images = new Map<string, Image>();

  constructor(private readonly context: Ec2Context) {}

  addImage(seed: ImageSeed): Image {
    const ownerAlias = seed.ownerAlias;
    const windows = seed.platform === 'windows';
    const image: Image = {
      ImageId: seed.id ?? `ami-${this.context.hexId(17)}`,
      Name: seed.name,
      Description: seed.description,
      Architecture: seed.architecture ?? 'x86_64',
      CreationDate: isoString(seed.creationDate),
      ...(seed.deprecationTime === undefined ? {} : { DeprecationTime: isoString(seed.deprecationTime) }),
      State: seed.state ?? 'available',
      OwnerId: seed.ownerId ?? (ownerAlias === 'amazon' ? AMAZON_OWNER_ID : this.context.accountId),
      ...(ownerAlias === undefined ? {} : { ImageOwnerAlias: ownerAlias }),
      Public: seed.public ?? ownerAlias !== undefined,
      ImageType: 'machine',
      ...(windows ? { Platform: WINDOWS_PLATFORM } : {}),
      ...platformDetails(windows),
      Hypervisor: 'xen',
      RootDeviceName: windows ? '/dev/sda1' : '/dev/xvda',
      RootDeviceType: 'ebs',
      VirtualizationType: 'hvm',
      EnaSupport: true,
      Tags: tagList(seed.tags),
    };
    this.images.set(image.ImageId!, image);
    return structuredClone(image);
  }

  image(id: string): Image | undefined {
    return this.images.get(id);
  }

  /**
   * Moves an image to another state, as EC2 does when a registration or copy completes
   * (`pending` → `available`) or fails (`failed`).
   *
   * @throws Error when no image has the id (a mistake in the test, not an EC2 answer)
   */
  setImageState(id: string, state: ImageState): void {
    const image = this.images.get(id);
    if (image === undefined) throw new Error(`FakeEc2 has no image ${id} to move to ${state}`);
    image.State = state;
  }

  /**
   * Images in every state (`pending`, `available`, `failed`, ...) unless filtered by `state`;
   * deprecated AMIs are left out unless IncludeDeprecated is set, the AMI is named in
   * ImageIds, or the caller owns it, as the real API does.
   */
  describeImages(input: DescribeImagesCommandInput): OperationOutput<DescribeImagesCommandOutput> {
    const { fail, accountId } = this.context;
    for (const id of input.ImageIds ?? []) {
      if (!/^ami-[0-9a-f]{8,17}$/.test(id)) throw fail('InvalidAMIID.Malformed', `Invalid id: "${id}"`);
    }
    const missing = (input.ImageIds ?? []).filter((id) => !this.images.has(id));
    if (missing.length > 0)
      throw fail('InvalidAMIID.NotFound', `The image id '[${missing.join(', ')}]' does not exist`);
    const ids = input.ImageIds === undefined ? undefined : new Set(input.ImageIds);
    const owners = input.Owners === undefined ? undefined : new Set(input.Owners);
    const now = this.context.clock.now();
    const selected = filtered(fail, [...this.images.values()], input.Filters, IMAGE_FILTERS).filter(
      (image) => {
        if (ids !== undefined && !ids.has(image.ImageId!)) return false;
        if (owners !== undefined && !this.ownedBy(image, owners)) return false;
        const deprecated = image.DeprecationTime !== undefined && Date.parse(image.DeprecationTime) <= now;
        return (
          !deprecated || input.IncludeDeprecated === true || ids !== undefined || image.OwnerId === accountId
        );
      },
    );
    const listed = page(fail, selected, input, PAGES.resources, 'DescribeImages');
    return { Images: listed.items, NextToken: listed.nextToken };
  }

  private ownedBy(image: Image, owners: ReadonlySet<string>): boolean {
    return [...owners].some(
      (owner) =>
        owner === image.OwnerId ||
        (owner === 'self' && image.OwnerId === this.context.accountId) ||
        (image.ImageOwnerAlias !== undefined && owner === image.ImageOwnerAlias),
    );
  }
}

/**
 * `Platform` of Windows AMIs and instances. EC2 answers `windows`, lower case ("This value is set
 * to windows for Windows AMIs; otherwise, it is blank"), although the SDK's PlatformValues enum
 * spells it `Windows`; the SDK does not check enums, so readers must compare case-insensitively.
 */
export const WINDOWS_PLATFORM = 'windows' as PlatformValues;

/**
 * What EC2 reports of the operating system an AMI (and an instance launched from it) is billed
 * as: `Windows` with usage operation `RunInstances:0002` (license included), else `Linux/UNIX`
 * with `RunInstances` (EC2 user guide, "AMI billing information fields").
 */
export function platformDetails(windows: boolean): { PlatformDetails: string; UsageOperation: string } {
  return windows
    ? { PlatformDetails: 'Windows', UsageOperation: 'RunInstances:0002' }
    : { PlatformDetails: 'Linux/UNIX', UsageOperation: 'RunInstances' };
}

function isoString(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}
