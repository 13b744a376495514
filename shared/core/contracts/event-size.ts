/**
 * Size limits of the events the watcher puts on the cluster's bus. EventBridge refuses a
 * PutEvents entry over 256 KB, counting the UTF-8 bytes of Source, DetailType, Detail and
 * Resources plus 14 bytes for Time.
 */

/** EventBridge's limit on one PutEvents entry, in bytes. */
export const MAX_EVENT_ENTRY_BYTES = 256 * 1024;

/**
 * What a watcher event's detail may take: the entry limit minus 1 KiB for Source, DetailType,
 * Time and Resources, which the watcher keeps short.
 */
export const MAX_EVENT_DETAIL_BYTES = MAX_EVENT_ENTRY_BYTES - 1024;

/** UTF-8 length of `text` in bytes, without encoding it (core stays free of Buffer). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The size EventBridge counts for a detail object: its JSON text in UTF-8. */
export function detailByteLength(detail: unknown): number {
  return utf8ByteLength(JSON.stringify(detail));
}
