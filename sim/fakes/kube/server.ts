/**
 * A fake Kubernetes API server on 127.0.0.1 for tests that drive the real
 * @kubernetes/client-node: HTTP with the real paths, Status bodies and watch streams over a
 * stateful {@link KubeStore}, plus test controls (fault injection, dropped watches, history
 * compaction, a request log).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { Time } from '../../../shared/core/ports/time';
import { systemTime } from '../../../shared/runtime/system-time';
import { decideAccess, type FakeKubeAuthorization } from './authorization';
import { maintainDisruptionBudgetStatus } from './disruption';
import { handleResourceRequest } from './handlers';
import { readBody, respond, respondText } from './http-io';
import type { ResourceRegistry } from './resources';
import type { KubeVerb, Route } from './routes';
import { routeFor, unservedPathAnswer, verbFor } from './routes';
import type { FakeServerVersion } from './server-version';
import { DEFAULT_FAKE_KUBERNETES_VERSION, parseFakeServerVersion, versionInfo } from './server-version';
import type { StatusBody } from './status';
import { failureStatus, isKubeApiError, statusForCode, unservedPathStatus } from './status';
import type { KubeStoreOptions } from './store';
import { KubeStore } from './store';
import { WatchHub } from './watch';

/** Options of {@link startFakeKubeApiServer}. */
export interface FakeKubeApiServerOptions extends Omit<KubeStoreOptions, 'clock'> {
  /**
   * The timeline the server stamps objects with (creation, deletion, conditions) and ends
   * watches (`timeoutSeconds`) and sends automatic BOOKMARKs on: a test's or the simulator's
   * VirtualTime, so the cluster's times follow theirs.
   * @default the wall clock and Node's timers
   */
  readonly time?: Time;
  /**
   * When set, every request must carry `Authorization: Bearer <requireToken>`; others get 401.
   * @default undefined (any or no token is accepted)
   */
  readonly requireToken?: string;
  /**
   * Authenticate every request's bearer token as a user and authorize it with RBAC, answering
   * 401 and 403 as the real server does (authorization.ts, rbac.ts).
   * @default undefined (every request is allowed)
   */
  readonly authorization?: FakeKubeAuthorization;
  /**
   * The bearer token {@link FakeKubeApiServer.kubeConfig} puts in the kubeconfig.
   * @default requireToken, else 'podlift-test-token'
   */
  readonly token?: string;
  /**
   * Interval of automatic BOOKMARK events on watches that allow them; none when absent
   * ({@link FakeKubeApiServer.sendBookmarks} sends them on demand).
   * @default undefined
   */
  readonly bookmarkIntervalMs?: number;
  /**
   * Keep PodDisruptionBudget `.status` current as the disruption controller would.
   * @default true
   */
  readonly maintainDisruptionBudgetStatus?: boolean;
  /**
   * The `gitVersion` `GET /version` answers. Older releases also serve less: before 1.21 no
   * policy/v1 PodDisruptionBudgets, before 1.22 no policy/v1 Evictions.
   * @default DEFAULT_FAKE_KUBERNETES_VERSION
   */
  readonly kubernetesVersion?: string;
  /**
   * A gate every request passes before it is served: when it returns a promise, the request
   * waits for it (the simulator's sequencer serves racing requests in one replayable order).
   * @default every request is served as it arrives
   */
  readonly admit?: (request: IncomingMessage, response: ServerResponse) => Promise<void> | undefined;
}

/** One request as the server saw it. */
export interface RecordedRequest {
  readonly method: string;
  /** URL path without the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Undefined for discovery and unknown paths. */
  readonly verb?: KubeVerb;
  readonly contentType?: string;
  /** The bearer token, when one was sent. */
  readonly token?: string;
  /** Who the token authenticated as, when the server checks {@link FakeKubeApiServerOptions.authorization}. */
  user?: string;
  /** The decoded JSON body, when one was sent. */
  readonly body?: unknown;
  /** The HTTP status answered (200 for a watch that started streaming). */
  status: number;
}

/** Options of {@link FakeKubeApiServer.failNext}. */
export interface FaultOptions {
  /** Status message; defaults to the real server's message for the code. */
  readonly message?: string;
  /**
   * How many matching requests fail.
   * @default 1
   */
  readonly times?: number;
  /** Sent as `Retry-After` and `details.retryAfterSeconds` (429, 503). */
  readonly retryAfterSeconds?: number;
}

/** Which requests a fault or a hang applies to, and to how many more of them. */
interface RequestMatch {
  readonly verb: KubeVerb;
  readonly path: string | RegExp;
  remaining: number;
}

interface Fault extends RequestMatch {
  readonly status: StatusBody;
  readonly retryAfterSeconds?: number;
}

/** A running fake API server. */
export class FakeKubeApiServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The state behind the server; use it for setup and assertions. */
  readonly store: KubeStore;
  private readonly server: Server;
  private readonly watches: WatchHub;
  private readonly token: string;
  private readonly requireToken: string | undefined;
  private readonly authorization: FakeKubeAuthorization | undefined;
  private readonly faults: Fault[] = [];
  private readonly hangs: RequestMatch[] = [];
  private readonly log: RecordedRequest[] = [];
  private readonly stopControllers: (() => void)[] = [];
  private version: FakeServerVersion;
  private served: ResourceRegistry;

  private constructor(server: Server, store: KubeStore, time: Time, options: FakeKubeApiServerOptions) {
    this.server = server;
    this.store = store;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.watches = new WatchHub(store, time, options.bookmarkIntervalMs);
    this.requireToken = options.requireToken;
    this.authorization = options.authorization;
    this.token = options.token ?? options.requireToken ?? 'podlift-test-token';
    this.version = parseFakeServerVersion(options.kubernetesVersion ?? DEFAULT_FAKE_KUBERNETES_VERSION);
    this.served = store.resources.servedBy(this.version.major, this.version.minor);
    if (options.maintainDisruptionBudgetStatus ?? true)
      this.stopControllers.push(maintainDisruptionBudgetStatus(store, time));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const gate = options.admit?.(request, response);
      (gate ? gate.then(() => this.handle(request, response)) : this.handle(request, response)).catch(
        (error: unknown) => {
          if (!response.headersSent) respond(response, 500, failureStatus(500, String(error)));
          else response.destroy();
        },
      );
    });
  }

  /** Starts a server on an ephemeral loopback port. */
  static async start(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const time = options.time ?? systemTime();
    return new FakeKubeApiServer(server, new KubeStore({ ...options, clock: time }), time, options);
  }

  /** Every request so far, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.log;
  }

  /** How many watch streams are open. */
  get openWatches(): number {
    return this.watches.size;
  }

  /**
   * A KubeConfig for this server (plain HTTP, so `skipTLSVerify: true`), authenticating with
   * `token` (default: the server's token).
   */
  kubeConfig(token: string = this.token): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'podlift', token }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'podlift' }],
      currentContext: 'fake',
    });
    return kc;
  }

  /**
   * Makes the next request(s) with `verb` whose path equals `path` (or matches it, for a
   * RegExp; `'*'` matches any path) fail with HTTP `status` and the real server's Status body.
   * A failed watch answers the status instead of streaming.
   */
  failNext(verb: KubeVerb, path: string | RegExp, status: number, options: FaultOptions = {}): void {
    const body = statusForCode(status, options.message);
    if (options.retryAfterSeconds !== undefined)
      body.details = { retryAfterSeconds: options.retryAfterSeconds };
    this.faults.push({
      verb,
      path,
      status: body,
      retryAfterSeconds: options.retryAfterSeconds,
      remaining: options.times ?? 1,
    });
  }

  /**
   * Makes the next request(s) with `verb` whose path equals (or matches) `path` go unanswered:
   * the server reads the request and never sends a byte back, as over a connection that died
   * silently or through a stuck proxy. The connection stays open until the client gives up or
   * the server closes; its recorded status stays 0.
   */
  hangNext(verb: KubeVerb, path: string | RegExp, options: { times?: number } = {}): void {
    this.hangs.push({ verb, path, remaining: options.times ?? 1 });
  }

  /** Forgets every injected fault and hang that has not fired yet. */
  clearFaults(): void {
    this.faults.length = 0;
    this.hangs.length = 0;
  }

  /** The `gitVersion` the server claims. */
  get kubernetesVersion(): string {
    return this.version.gitVersion;
  }

  /** Claims another Kubernetes version from now on (an upgrade, or an older cluster), with what it serves. */
  setKubernetesVersion(gitVersion: string): void {
    this.version = parseFakeServerVersion(gitVersion);
    this.served = this.store.resources.servedBy(this.version.major, this.version.minor);
  }

  /** Forgets the watch history: watches resuming from an older resourceVersion get 410 Expired. */
  compactHistory(): void {
    this.store.compactHistory();
  }

  /**
   * Ends every open watch response, as a server-side watch timeout does (the client's `done`
   * gets no error) or, with `abrupt`, by destroying the connection (`done` gets an error).
   */
  dropWatches(options: { abrupt?: boolean } = {}): void {
    this.watches.drop(options.abrupt);
  }

  /** Sends a BOOKMARK on every open watch that allows them. */
  sendBookmarks(): void {
    this.watches.sendBookmarks();
  }

  /** Empties the request log. */
  clearRequests(): void {
    this.log.length = 0;
  }

  /** Ends the watches and connections and stops listening. */
  async close(): Promise<void> {
    for (const stop of this.stopControllers) stop();
    this.watches.drop(true);
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const text = await readBody(request);
    const authorization = request.headers.authorization ?? '';
    const token = authorization.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
    const contentType = request.headers['content-type'];
    const route = url.pathname === '/version' ? undefined : routeFor(this.served, url.pathname);
    const verb =
      route?.kind === 'resource' ? verbFor(request.method ?? 'GET', route, url.searchParams) : undefined;
    let body: unknown;
    let bodyError: string | undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch (error) {
        bodyError = `couldn't get version/kind; json parse error: ${(error as Error).message}`;
      }
    }
    const entry: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(verb ? { verb } : {}),
      ...(contentType ? { contentType } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { body } : {}),
      status: 0,
    };
    this.log.push(entry);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      respond(response, status, payload, headers);
    };
    if (this.requireToken !== undefined && token !== this.requireToken)
      return answer(401, statusForCode(401));
    if (this.authorization) {
      const method = request.method ?? 'GET';
      const query = url.searchParams;
      const access = decideAccess(this.authorization, token, {
        method,
        path: url.pathname,
        query,
        route,
        verb,
      });
      if (access.user) entry.user = access.user.name;
      if (!access.allowed) return answer(access.status.code, access.status);
    }
    if (url.pathname === '/version' && request.method === 'GET')
      return answer(200, versionInfo(this.version));
    if (!route) {
      if (unservedPathAnswer(this.store.resources, url.pathname) === 'status')
        return answer(404, unservedPathStatus());
      entry.status = 404;
      return respondText(response, 404, '404 page not found\n');
    }
    if (route.kind === 'discovery') return answer(200, route.document);
    if (!verb)
      return answer(
        405,
        failureStatus(
          405,
          `the server does not allow this method on the requested resource`,
          'MethodNotAllowed',
        ),
      );
    if (takeMatch(this.hangs, verb, url.pathname)) return;
    const fault = takeMatch(this.faults, verb, url.pathname);
    if (fault) {
      const headers: Record<string, string> =
        fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
      return answer(fault.status.code, fault.status, headers);
    }
    if (bodyError) return answer(400, failureStatus(400, bodyError));
    try {
      if (verb === 'watch') {
        this.serveWatch(route, url.searchParams, response);
        entry.status = 200;
        return;
      }
      const result = handleResourceRequest(this.store, {
        verb,
        route,
        query: url.searchParams,
        body,
        contentType: contentType ?? 'application/json',
        version: this.version,
      });
      answer(result.status, result.body);
    } catch (error) {
      if (!isKubeApiError(error)) throw error;
      answer(error.code, error.status);
    }
  }

  private serveWatch(
    route: Route & { kind: 'resource' },
    query: URLSearchParams,
    response: ServerResponse,
  ): void {
    const timeout = query.get('timeoutSeconds');
    this.watches.serve(
      {
        resource: route.resource,
        namespace: route.namespace,
        labelSelector: query.get('labelSelector') ?? undefined,
        fieldSelector: query.get('fieldSelector') ?? undefined,
        resourceVersion: query.get('resourceVersion') ?? undefined,
        allowWatchBookmarks: query.get('allowWatchBookmarks') === 'true',
        timeoutSeconds: timeout !== null && /^\d+$/.test(timeout) ? Number(timeout) : undefined,
      },
      response,
    );
  }
}

/** The first of `matches` for this request, counted as spent once (removed when used up). */
function takeMatch<T extends RequestMatch>(matches: T[], verb: KubeVerb, path: string): T | undefined {
  const index = matches.findIndex(
    (m) =>
      m.verb === verb &&
      (m.path === '*' || (typeof m.path === 'string' ? m.path === path : m.path.test(path))),
  );
  if (index < 0) return undefined;
  const match = matches[index];
  match.remaining -= 1;
  if (match.remaining <= 0) matches.splice(index, 1);
  return match;
}

/** Starts a {@link FakeKubeApiServer} on 127.0.0.1 (ephemeral port). */
export function startFakeKubeApiServer(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
  return FakeKubeApiServer.start(options);
}
