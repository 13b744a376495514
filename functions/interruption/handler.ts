import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import type { LambdaContextLike } from '../invocation';
import { METRICS } from '../observability';
import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { type QueueMessage, runInterruption } from './loop';

const sqsEvent = z.object({
  Records: z.array(z.object({ messageId: z.string(), body: z.string() }).passthrough()),
});

/**
 * The interruption function's handler: an SQS event source with partial batch responses
 * (ReportBatchItemFailures). Each record goes through Powertools' BatchProcessor, which turns a
 * thrown (transient) error into that record's failure; the loop adds the records whose
 * replacement capacity could not be launched yet. An event that is not an SQS batch is logged
 * and acknowledged.
 */
export function makeInterruptionHandler(runtime: () => LoopRuntime) {
  return async (event: unknown, context: LambdaContextLike): Promise<SQSBatchResponse> => {
    const rt = runtime();
    const invocation = rt.begin(context);
    const parsed = sqsEvent.safeParse(event);
    if (!parsed.success) {
      invocation.log.warn('ignoring an event that is not an SQS batch', { error: parsed.error.message });
      return { batchItemFailures: [] };
    }
    const started = rt.time.now();
    try {
      const failed = await runInterruption(rt, invocation, parsed.data.Records, async (messages, handle) => {
        const processor = new BatchProcessor(EventType.SQS);
        const response = await processPartialResponse(
          { Records: messages as unknown as SQSRecord[] } as SQSEvent,
          (record: SQSRecord) => handle(record as QueueMessage),
          processor,
          { throwOnFullBatchFailure: false },
        );
        return response.batchItemFailures.map((f) => f.itemIdentifier);
      });
      return { batchItemFailures: [...new Set(failed)].map((itemIdentifier) => ({ itemIdentifier })) };
    } finally {
      invocation.metrics.add(METRICS.invocationTime, 'Milliseconds', rt.time.now() - started);
      await rt.metrics.flush();
    }
  };
}

/** The Lambda entry point. */
export const handler = makeInterruptionHandler(() => lambdaRuntime('interruption'));
