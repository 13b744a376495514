import { describe, expect, it } from 'vitest';
import type { Resources } from '../../../shared/core/model/resources';
import { RoomIndex } from '../../../shared/core/scheduling/room-index';

/** The answer of the walk the index replaces: the first node from `from` with room in every resource asked for. */
function walk(rooms: readonly Resources[], from: number, request: Resources): number {
  for (let i = from; i < rooms.length; i++) {
    if (Object.keys(request).every((k) => request[k] <= 0 || request[k] <= (rooms[i][k] ?? 0))) return i;
  }
  return -1;
}

/** A seeded generator, so a failure reproduces. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('RoomIndex', () => {
  it('finds the first node with room for every requested resource, not one with room in each separately', () => {
    const index = new RoomIndex();
    // Node 0 has cpu but no memory, node 1 memory but no cpu: their subtree passes on the
    // per-resource maxima, yet neither holds the request.
    index.push({ cpu: 1000, memory: 0, pods: 10 });
    index.push({ cpu: 0, memory: 1000, pods: 10 });
    index.push({ cpu: 1000, memory: 1000, pods: 0 });
    index.push({ cpu: 1000, memory: 1000, pods: 1 });
    expect(index.next(0, { cpu: 500, memory: 500, pods: 1 })).toBe(3);
    expect(index.next(0, { cpu: 500 })).toBe(0);
    expect(index.next(1, { cpu: 500 })).toBe(2);
    expect(index.next(4, { cpu: 1 })).toBe(-1);
    // A request for nothing is held by any node, never by one past the end.
    expect(index.next(3, {})).toBe(3);
    expect(index.next(4, {})).toBe(-1);
  });

  it('sees a node fill up', () => {
    const index = new RoomIndex();
    index.push({ cpu: 1000, memory: 1000, pods: 10 });
    index.push({ cpu: 1000, memory: 1000, pods: 10 });
    index.set(0, { cpu: 100, memory: 1000, pods: 9 });
    expect(index.next(0, { cpu: 500, memory: 1, pods: 1 })).toBe(1);
    index.set(1, { cpu: 0, memory: 0, pods: 0 });
    expect(index.next(0, { cpu: 500, memory: 1, pods: 1 })).toBe(-1);
    expect(index.next(0, { cpu: 100, memory: 1, pods: 1 })).toBe(0);
  });

  it('clones into an index of its own: changes to either leave the other as it was', () => {
    const index = new RoomIndex();
    for (let i = 0; i < 70; i++) index.push({ cpu: 100, memory: 100, pods: 1 });
    index.set(3, { cpu: 1000, memory: 1000, pods: 5 });
    const copy = index.clone();
    expect(copy.length).toBe(70);
    expect(copy.next(0, { cpu: 500 })).toBe(3);
    copy.set(3, { cpu: 0, memory: 0, pods: 0 });
    copy.set(69, { cpu: 2000, memory: 2000, pods: 9 });
    expect(copy.next(0, { cpu: 500 })).toBe(69);
    expect(index.next(0, { cpu: 500 })).toBe(3);
    expect(index.next(4, { cpu: 500 })).toBe(-1);
    index.set(5, { cpu: 800, memory: 800, pods: 1 });
    expect(copy.next(0, { cpu: 700 })).toBe(69);
    // The copy grows on its own: past its 64-leaf start and the original's length.
    copy.push({ cpu: 5000, memory: 5000, pods: 9 });
    expect(copy.next(0, { cpu: 3000 })).toBe(70);
    expect(index.length).toBe(70);
    expect(index.next(0, { cpu: 3000 })).toBe(-1);
  });

  it('answers as the walk does on random rooms, updates and requests, across growth', () => {
    const random = lcg(7);
    const index = new RoomIndex();
    const rooms: Resources[] = [];
    const room = (): Resources => ({
      cpu: Math.floor(random() * 8) * 250,
      memory: Math.floor(random() * 8) * 512,
      pods: Math.floor(random() * 3),
    });
    for (let step = 0; step < 3000; step++) {
      if (rooms.length === 0 || random() < 0.3) {
        const r = room();
        rooms.push(r);
        index.push(r);
      } else if (random() < 0.5) {
        const i = Math.floor(random() * rooms.length);
        rooms[i] = room();
        index.set(i, rooms[i]);
      }
      const request = {
        cpu: Math.floor(random() * 6) * 250,
        memory: Math.floor(random() * 6) * 512,
        pods: 1,
      };
      const from = Math.floor(random() * (rooms.length + 1));
      expect(index.next(from, request), `step ${step} from ${from}`).toBe(walk(rooms, from, request));
    }
    expect(index.length).toBe(rooms.length);
  });
});
