/**
 * Where the watcher writes its structured log lines. Powertools' Logger fits (main.ts passes
 * one); tests pass {@link silentLog} or a recording fake.
 */
export interface WatcherLog {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

/** Drops every line. */
export const silentLog: WatcherLog = { info() {}, warn() {}, error() {} };

/** An error as log attributes: its name and message, not its stack. */
export function errorAttributes(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: { name: error.name, message: error.message } };
  return { error: String(error) };
}
