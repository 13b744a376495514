import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import type { Clock } from '../../shared/core/ports/time';

/** Options of {@link InterruptionQueue}. */
export interface InterruptionQueueOptions {
  readonly clock: Clock;
  readonly arn: string;
  readonly region: string;
  /** A received message is hidden this long; unless deleted it comes back. @default 30 s (SQS's default) */
  readonly visibilityTimeoutMs?: number;
  /** Messages older than this are dropped. @default 300 s (Karpenter's queue: MessageRetentionPeriod 300) */
  readonly retentionMs?: number;
  /** Records per Lambda batch. @default 10 (the SQS event source's default BatchSize) */
  readonly batchSize?: number;
}

interface Message {
  readonly messageId: string;
  readonly body: string;
  readonly sentAt: number;
  firstReceivedAt?: number;
  receiveCount: number;
  visibleAt: number;
  receipt: number;
}

/**
 * The interruption queue as SQS and Lambda's SQS event source treat it: messages become a batch
 * of real SQS records, are hidden for the visibility timeout while the function runs, are
 * deleted when the function reports them done (ReportBatchItemFailures: every record not listed
 * as failed), come back after the timeout when failed or when the whole invocation threw, and
 * expire after the retention period.
 */
export class InterruptionQueue {
  private readonly messages: Message[] = [];
  private serial = 0;
  private receipts = 0;
  private readonly visibilityMs: number;
  private readonly retentionMs: number;
  private readonly batchSize: number;
  /** Messages dropped at retention without being deleted. */
  expired = 0;

  constructor(private readonly options: InterruptionQueueOptions) {
    this.visibilityMs = options.visibilityTimeoutMs ?? 30_000;
    this.retentionMs = options.retentionMs ?? 300_000;
    this.batchSize = options.batchSize ?? 10;
  }

  /** The queue's ARN. */
  get arn(): string {
    return this.options.arn;
  }

  /** Messages in the queue, visible or not. */
  get depth(): number {
    return this.messages.length;
  }

  /** Sends an EventBridge event as the rule's SQS target does: the event JSON is the body. */
  send(event: unknown): void {
    const now = this.options.clock.now();
    this.messages.push({
      messageId: uuidOf(`${this.options.arn}/${this.serial++}`),
      body: JSON.stringify(event),
      sentAt: now,
      receiveCount: 0,
      visibleAt: now,
      receipt: 0,
    });
  }

  /** The next batch of visible messages as the Lambda event source receives them, or undefined. */
  receive(): { readonly Records: SQSRecord[] } | undefined {
    const now = this.options.clock.now();
    for (let i = this.messages.length - 1; i >= 0; i--) {
      if (now - this.messages[i].sentAt >= this.retentionMs) {
        this.messages.splice(i, 1);
        this.expired++;
      }
    }
    const batch = this.messages.filter((m) => m.visibleAt <= now).slice(0, this.batchSize);
    if (batch.length === 0) return undefined;
    return {
      Records: batch.map((m) => {
        m.receiveCount++;
        m.firstReceivedAt ??= now;
        m.visibleAt = now + this.visibilityMs;
        m.receipt = ++this.receipts;
        return this.record(m);
      }),
    };
  }

  /** Deletes the batch's messages but the failed ones (by messageId), which reappear after the timeout. */
  complete(records: readonly SQSRecord[], failedIds: readonly string[]): void {
    const failed = new Set(failedIds);
    for (const record of records) {
      if (failed.has(record.messageId)) continue;
      const index = this.messages.findIndex(
        (m) => m.messageId === record.messageId && receiptHandle(m) === record.receiptHandle,
      );
      if (index >= 0) this.messages.splice(index, 1);
    }
  }

  private record(m: Message): SQSRecord {
    const { arn, region } = this.options;
    return {
      messageId: m.messageId,
      receiptHandle: receiptHandle(m),
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: 'AIDAIENQZJOLO23YVJ4VO',
        ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(m.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: region,
    };
  }
}

/** A receipt handle changes with every receive, as SQS's do. */
function receiptHandle(m: Message): string {
  return Buffer.from(`${m.messageId}#${m.receipt}`).toString('base64');
}

function uuidOf(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
