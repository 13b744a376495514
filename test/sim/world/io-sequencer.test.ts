import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../../sim/fakes/kube';
import { VirtualTime } from '../../../sim/virtual-time';
import { settleOn } from '../../../sim/world/function-router';
import { SequencedIo } from '../../../sim/world/io-sequencer';

let server: FakeKubeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Creates Namespace `name` with a raw request through `io`'s agent; `send` ends it when called. */
function createNamespace(url: string, io: SequencedIo, name: string) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const req = request(`${url}/api/v1/namespaces`, {
    method: 'POST',
    agent: io.agent(),
    headers: { 'content-type': 'application/json' },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  return { send: () => req.end(body), answered };
}

describe('SequencedIo', () => {
  it('serves racing requests in the order they were issued, not the order they arrived', async () => {
    const io = new SequencedIo();
    const time = new VirtualTime();
    server = await startFakeKubeApiServer({ time, admit: (q, r) => io.admit(q, r) });
    const first = createNamespace(server.url, io, 'first');
    const second = createNamespace(server.url, io, 'second');
    // The second request reaches the server well before the first has sent a byte.
    second.send();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.store.list('namespaces').items).toEqual([]);
    first.send();
    expect(await Promise.all([first.answered, second.answered])).toEqual([201, 201]);
    const rv = (name: string) =>
      Number(
        server?.store.list('namespaces').items.find((o) => o.metadata.name === name)?.metadata
          .resourceVersion,
      );
    expect(rv('first')).toBeLessThan(rv('second'));
    expect(io.served).toBe(2);
  });

  it('holds virtual time until every request is served and read', async () => {
    const io = new SequencedIo();
    const time = new VirtualTime();
    time.settleWith(() => io.idle());
    server = await startFakeKubeApiServer({ time, admit: (q, r) => io.admit(q, r) });
    const url = server.url;
    const seen: number[] = [];
    // A timer due at once issues a request that takes 50 ms of wall time to leave the client;
    // the next timer, 1 ms later, must see its answer.
    time.setTimeout(() => {
      const c = createNamespace(url, io, 'made-by-a-timer');
      setTimeout(c.send, 50);
    }, 0);
    time.setTimeout(() => seen.push(server?.store.list('namespaces').items.length ?? -1), 1);
    await time.advanceAsync(1);
    expect(seen).toEqual([1]);
  });

  it('keeps the clock still while an invocation waits on real I/O, and moves it for its backoffs', async () => {
    const io = new SequencedIo();
    // settleOn alone, without VirtualTime waiting for the I/O as well (as the world's does).
    const time = new VirtualTime();
    server = await startFakeKubeApiServer({ time, admit: (q, r) => io.admit(q, r) });
    const url = server.url;
    const start = time.now();
    const fired: number[] = [];
    time.setTimeout(() => fired.push(time.now() - start), 200);
    const run = (async () => {
      const slow = createNamespace(url, io, 'slow');
      setTimeout(slow.send, 50);
      await slow.answered;
      const answeredAt = time.now() - start;
      await new Promise<void>((resolve) => time.setTimeout(resolve, 1000));
      return answeredAt;
    })();
    expect(await settleOn(time, io, run)).toBe(0);
    expect(fired).toEqual([200]);
    expect(time.now() - start).toBe(1000);
  });

  it('serves a request without a number (a test client of its own) at once', async () => {
    const io = new SequencedIo();
    server = await startFakeKubeApiServer({ admit: (q, r) => io.admit(q, r) });
    const response = await fetch(`${server.url}/api/v1/namespaces`);
    expect(response.status).toBe(200);
    expect(io.served).toBe(0);
  });
});
