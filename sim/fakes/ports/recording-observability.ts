import type {
  LogFields,
  LoopLog,
  LoopMetrics,
  LoopMetricUnit,
  MetricDimensions,
  MetricName,
} from '../../../functions/observability';

/** One line a loop logged. */
export interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
}

/** One metric value a loop added. */
export interface RecordedMetric {
  readonly name: MetricName;
  readonly unit: LoopMetricUnit;
  readonly value: number;
  readonly dimensions: MetricDimensions;
}

/**
 * A {@link LoopLog} and {@link LoopMetrics} that keep what they are told, for tests and the
 * simulator's log: `lines` in order, `metrics` as added, `flushed` counting publishes. `onLine`
 * lets the simulator print lines as they happen.
 */
export class RecordingObservability {
  readonly lines: LoggedLine[] = [];
  readonly metrics: RecordedMetric[] = [];
  flushed = 0;

  constructor(private readonly onLine?: (line: LoggedLine) => void) {}

  /** The log port. */
  readonly log: LoopLog = {
    info: (message, fields) => this.record('info', message, fields),
    warn: (message, fields) => this.record('warn', message, fields),
    error: (message, fields) => this.record('error', message, fields),
  };

  /** The metrics port. */
  readonly metricsPort: LoopMetrics = {
    add: (name, unit, value, dimensions) => {
      this.metrics.push({ name, unit, value, dimensions: dimensions ?? {} });
    },
    flush: () => {
      this.flushed++;
    },
  };

  /** Sum of the values of metric `name` whose dimensions include `dimensions`. */
  total(name: MetricName, dimensions: MetricDimensions = {}): number {
    return this.metrics
      .filter((m) => m.name === name && Object.entries(dimensions).every(([k, v]) => m.dimensions[k] === v))
      .reduce((sum, m) => sum + m.value, 0);
  }

  /** Lines whose message is `message`. */
  linesSaying(message: string): LoggedLine[] {
    return this.lines.filter((l) => l.message === message);
  }

  private record(level: LoggedLine['level'], message: string, fields: LogFields = {}): void {
    const line = { level, message, fields };
    this.lines.push(line);
    this.onLine?.(line);
  }
}
