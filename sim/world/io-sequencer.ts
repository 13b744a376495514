import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AgentOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** The header carrying a request's place in issue order from the client to the fake API server. */
export const SEQUENCE_HEADER = 'x-podlift-sequence';

/** Consecutive event-loop turns with nothing in flight before the process counts as idle. */
const QUIET_TURNS = 3;
/** Wall time a request may stay in flight on loopback before the world gives up on it. */
const STUCK_AFTER_MS = 60_000;

interface Exchange {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
  /** The client's request is open (its `close` has not fired). */
  clientOpen: boolean;
  /** The client has read the response's head (for a watch: the stream is open at both ends). */
  responded: boolean;
  /** Where the server is with it. */
  server: 'not-arrived' | 'queued' | 'serving' | 'answered';
  release?: () => void;
}

/**
 * Makes the real HTTP between podlift's clients and the fake API server replay exactly. Every
 * request the sequenced clients issue is numbered in the order the code issued it (a
 * synchronous step of `http.request`, so the same in every run); the server holds each one
 * until the whole process is idle — no other request in flight, every response read, the
 * watcher caught up ({@link SequencedIo.quietWhen}) — and then serves the lowest-numbered.
 * Requests that raced over separate connections (eight-way concurrent writes, a relist beside a
 * function's calls) are thus served in one order, whatever order the kernel delivered them in.
 *
 * {@link idle} is how virtual time waits for real I/O: the clock moves only once every request
 * has been served and read and nothing else happened for a few event-loop turns, so no change
 * reaches a client "late" in virtual time because a socket was slow on a busy machine.
 */
export class SequencedIo {
  private nextSeq = 1;
  private readonly exchanges = new Map<number, Exchange>();
  private changes = 0;
  private draining: Promise<void> | undefined;
  private readonly extraQuiet: (() => boolean)[] = [];
  private readonly beforeServe = new Set<() => void>();

  /** Requests served through the gate so far. */
  served = 0;

  /** Adds a condition the process must meet to count as idle (e.g. the watcher caught up). */
  quietWhen(condition: () => boolean): void {
    this.extraQuiet.push(condition);
  }

  /** Calls `hook` just before each held request is served, until the returned function is called. */
  onServe(hook: () => void): () => void {
    this.beforeServe.add(hook);
    return () => this.beforeServe.delete(hook);
  }

  /**
   * `base` (the fake server's KubeConfig) with an HTTP agent that numbers every request.
   * client-node builds a fresh agent per request through its private `createAgent`; the copy
   * answers with a numbering one instead (client-node 1.4, dist/config.js `createAgent`).
   */
  kubeConfig(base: KubeConfig): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(base.exportConfig());
    // biome-ignore lint/suspicious/noExplicitAny: createAgent is private in client-node's typings.
    (kc as any).createAgent = (_cluster: unknown, options: AgentOptions) => this.agent(options);
    return kc;
  }

  /** An HTTP agent whose requests are numbered in the order they are issued. */
  agent(options: AgentOptions = {}): Agent {
    return new NumberingAgent(this, options);
  }

  /** Called by the agent as the client issues `request` (synchronously, in issue order). */
  issued(request: ClientRequest): void {
    const seq = this.nextSeq++;
    request.setHeader(SEQUENCE_HEADER, String(seq));
    const exchange: Exchange = {
      seq,
      method: request.method,
      path: request.path,
      watch: /[?&]watch=(true|1)/.test(request.path),
      clientOpen: true,
      responded: false,
      server: 'not-arrived',
    };
    this.exchanges.set(seq, exchange);
    this.changed();
    request.once('response', () => {
      exchange.responded = true;
      this.changed();
    });
    request.once('close', () => {
      exchange.clientOpen = false;
      this.forgetIfDone(exchange);
      this.changed();
    });
  }

  /**
   * The server's gate: a numbered request waits until it is its turn (the promise resolves);
   * an unnumbered one (a test's own client) is served at once (undefined).
   */
  admit(request: IncomingMessage, response: ServerResponse): Promise<void> | undefined {
    const seq = Number(request.headers[SEQUENCE_HEADER]);
    if (!Number.isInteger(seq) || seq <= 0) return undefined;
    let exchange = this.exchanges.get(seq);
    if (!exchange) {
      // Its client already gave up (aborted after sending): served in its turn all the same.
      exchange = {
        seq,
        method: request.method ?? '?',
        path: request.url ?? '?',
        watch: false,
        clientOpen: false,
        responded: false,
        server: 'not-arrived',
      };
      this.exchanges.set(seq, exchange);
    }
    const held = exchange;
    response.once('close', () => {
      held.server = 'answered';
      this.forgetIfDone(held);
      this.changed();
    });
    return new Promise<void>((resolve) => {
      held.server = 'queued';
      held.release = resolve;
      this.changed();
      // A stuck exchange fails the drain; whoever waits in idle() next hears of it.
      this.drain().catch(() => undefined);
    });
  }

  /**
   * Resolves once the process is idle: every held request served in order, every response
   * read by its client, every extra condition met, and nothing changed for a few turns.
   */
  idle(): Promise<void> {
    return this.drain();
  }

  private drain(): Promise<void> {
    this.draining ??= this.serveInOrder().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async serveInOrder(): Promise<void> {
    for (;;) {
      await this.quiet();
      const next = this.lowestQueued();
      if (!next) return;
      for (const hook of this.beforeServe) hook();
      next.server = 'serving';
      next.release?.();
      next.release = undefined;
      this.served++;
      this.changed();
    }
  }

  /** Waits until nothing is in flight and nothing has changed for {@link QUIET_TURNS} turns. */
  private async quiet(): Promise<void> {
    const started = Date.now();
    let calm = 0;
    let seen = this.changes;
    while (calm < QUIET_TURNS) {
      await new Promise((resolve) => setImmediate(resolve));
      const still = this.changes === seen && this.nothingInFlight();
      calm = still ? calm + 1 : 0;
      seen = this.changes;
      if (!still && Date.now() - started > STUCK_AFTER_MS) throw new Error(this.stuck());
    }
  }

  private nothingInFlight(): boolean {
    for (const e of this.exchanges.values()) {
      if (e.server === 'queued') continue;
      // A served watch streams on: settled once its client has the head (the watcher's
      // delivered resourceVersions say whether the events that follow were read).
      if (e.server === 'serving' && e.watch && (e.responded || !e.clientOpen)) continue;
      if (e.server === 'not-arrived' && !e.clientOpen) continue;
      return false;
    }
    return this.extraQuiet.every((condition) => condition());
  }

  private lowestQueued(): Exchange | undefined {
    let lowest: Exchange | undefined;
    for (const e of this.exchanges.values())
      if (e.server === 'queued' && (!lowest || e.seq < lowest.seq)) lowest = e;
    return lowest;
  }

  private forgetIfDone(e: Exchange): void {
    if (!e.clientOpen && (e.server === 'answered' || e.server === 'not-arrived'))
      this.exchanges.delete(e.seq);
  }

  private changed(): void {
    this.changes++;
  }

  private stuck(): string {
    const open = [...this.exchanges.values()]
      .filter((e) => !(e.server === 'queued' || (e.server === 'serving' && e.watch)))
      .map(
        (e) =>
          `#${e.seq} ${e.method} ${e.path} (client ${e.clientOpen ? 'open' : 'closed'}, server ${e.server})`,
      );
    return `sim/world/io-sequencer.ts: real I/O with the fake API server did not settle in ${STUCK_AFTER_MS / 1000} s: ${
      open.length > 0
        ? open.join('; ')
        : 'no request in flight, but a quiet condition (the watcher caught up) never held'
    }`;
  }
}

/** An HTTP agent that hands each request to the sequencer as it is issued. */
class NumberingAgent extends Agent {
  constructor(
    private readonly io: SequencedIo,
    options: AgentOptions,
  ) {
    super(options);
  }

  addRequest(request: ClientRequest, options: object): void {
    this.io.issued(request);
    // biome-ignore lint/suspicious/noExplicitAny: addRequest is missing from @types/node's Agent.
    (Agent.prototype as any).addRequest.call(this, request, options);
  }
}
