import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import type { LambdaContextLike } from '../invocation';
import { METRICS } from '../observability';
import { type LoopRuntime, lambdaRuntime } from '../runtime';
import { runInterruption } from './loop';

/** Only the batch's shape: each record is read by the loop, so one bad record fails only itself. */
const sqsEvent = z.object({ Records: z.array(z.unknown()) });

/**
 * The interruption function's handler: an SQS event source with partial batch responses
 * (ReportBatchItemFailures). Each record goes through Powertools' BatchProcessor, which turns a
 * thrown (transient) error into that record's failure and leaves the others alone; a record that
 * can never be handled (no body, not an event) is acknowledged by the loop. An event that is not
 * an SQS batch at all is logged and acknowledged.
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
      const failed = await runInterruption(rt, invocation, parsed.data.Records, async (records, handle) => {
        const processor = new BatchProcessor(EventType.SQS);
        // The processor only reads a failed record's messageId; the loop never fails one without.
        const response = await processPartialResponse(
          { Records: records as SQSRecord[] } as SQSEvent,
          (record: SQSRecord) => handle(record),
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
