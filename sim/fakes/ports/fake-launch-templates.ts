import type { LaunchRequest } from '../../../shared/core/ports/cloud';
import type { LaunchTemplateProvider, LaunchTemplateRef } from '../../../shared/core/ports/launch-templates';

/**
 * The launch template provider, in memory: hands out the same pre-made templates for every
 * request, as the real one would once they exist, and records what it was asked.
 */
export class FakeLaunchTemplates implements LaunchTemplateProvider {
  /** Every request `ensure` was called with, oldest first. */
  readonly calls: LaunchRequest[] = [];
  /** Names passed to `invalidate`, oldest first. */
  readonly invalidated: string[] = [];

  constructor(readonly templates: readonly LaunchTemplateRef[]) {}

  async ensure(request: LaunchRequest): Promise<readonly LaunchTemplateRef[]> {
    this.calls.push(request);
    return this.templates;
  }

  invalidate(launchTemplateName: string): void {
    this.invalidated.push(launchTemplateName);
  }

  async deleteUnreferenced(): Promise<readonly string[]> {
    return [];
  }
}
