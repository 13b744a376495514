/** The only way core and adapters learn the time: injected, so tests and the simulator control it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
