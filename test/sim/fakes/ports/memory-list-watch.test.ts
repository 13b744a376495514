import { describe, expect, it } from 'vitest';
import { MemoryListWatch } from '../../../../sim/fakes/ports/memory-list-watch';

const pod = (name: string, phase = 'Pending') => ({
  metadata: { name, namespace: 'default' },
  status: { phase },
});
const rvOf = (object: unknown) =>
  (object as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

describe('MemoryListWatch', () => {
  it('stamps each change with a new resourceVersion and lists the current objects', async () => {
    const source = new MemoryListWatch();
    source.put(pod('a'));
    source.put(pod('b'));
    source.put(pod('a', 'Running'));
    source.delete('default/b');
    const page = await source.list();
    expect(page.resourceVersion).toBe('4');
    expect(page.items).toEqual([
      { ...pod('a', 'Running'), metadata: { ...pod('a').metadata, resourceVersion: '3' } },
    ]);
  });

  it('replays to a watch everything after its resourceVersion, then streams changes as they are made', async () => {
    const source = new MemoryListWatch();
    source.put(pod('a'));
    const { resourceVersion } = await source.list();
    source.put(pod('b')); // between the list and the watch
    const seen: string[] = [];
    const stream = await source.watch(
      resourceVersion,
      (type, object) => seen.push(`${type} ${rvOf(object)}`),
      () => undefined,
    );
    expect(seen).toEqual(['ADDED 2']);
    source.put(pod('a', 'Running'));
    source.delete('default/a');
    expect(seen).toEqual(['ADDED 2', 'MODIFIED 3', 'DELETED 4']);
    expect(source.openWatches).toBe(1);
    stream.abort();
    source.put(pod('c'));
    expect(seen).toHaveLength(3);
    expect(source.openWatches).toBe(0);
  });

  it('refuses to delete what it does not hold and to watch from a bad resourceVersion', async () => {
    const source = new MemoryListWatch();
    expect(() => source.delete('default/missing')).toThrow('no object "default/missing"');
    await expect(
      source.watch(
        'x',
        () => undefined,
        () => undefined,
      ),
    ).rejects.toThrow('resourceVersion "x"');
  });
});
