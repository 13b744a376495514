/** A clock the test moves by hand. */
export class ManualClock {
  constructor(private time = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Credentials the fakes never look at, so the SDK never goes looking for real ones. */
export const clientConfig = { region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } };
