import { CloudError } from '../../../shared/core/model/errors';
import type { BusEvent, EventPublisherPort } from '../../../shared/core/ports/publisher';

/**
 * The bus, in memory: records what was published, and fails the next calls on request the way
 * the EventBridge publisher does (a retryable CloudError).
 */
export class FakeEventPublisher implements EventPublisherPort {
  /** Events published successfully, oldest first. */
  readonly events: BusEvent[] = [];
  /** Every call, failed ones included. */
  calls = 0;
  private readonly failures: unknown[] = [];

  async publish(events: readonly BusEvent[]): Promise<void> {
    this.calls++;
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.events.push(...events);
  }

  /** Makes the next `times` calls fail with `error`. */
  failNext(
    times = 1,
    error: unknown = new CloudError(
      'publishing to the bus: ThrottlingException',
      'ThrottlingException',
      true,
    ),
  ): void {
    for (let i = 0; i < times; i++) this.failures.push(error);
  }

  /** Details of the published events of one detail-type. */
  details<Detail = Record<string, unknown>>(detailType: string): Detail[] {
    return this.events.filter((e) => e.detailType === detailType).map((e) => e.detail as Detail);
  }
}
