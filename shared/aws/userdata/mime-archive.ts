/**
 * MIME multipart archives as EC2 user data uses them (cloud-init and nodeadm read them):
 * parsed leniently enough for what Karpenter accepts, written exactly as Karpenter writes them
 * (aws/karpenter-provider-aws `pkg/providers/amifamily/bootstrap/mime/mime.go`): LF line ends,
 * boundary `//`, one `Content-Type` header per part.
 */

/** One part of an archive: its headers as written, in order, and its body. */
export interface MimePart {
  readonly headers: readonly (readonly [name: string, value: string])[];
  readonly content: string;
}

/** nodeadm's NodeConfig part (`application/` + the node.eks.aws API group). */
export const CONTENT_TYPE_NODE_CONFIG = 'application/node.eks.aws';
/** A shell script cloud-init runs. */
export const CONTENT_TYPE_SHELL_SCRIPT = 'text/x-shellscript; charset="us-ascii"';
/** A cloud-config document. */
export const CONTENT_TYPE_CLOUD_CONFIG = 'text/cloud-config; charset="us-ascii"';

/** The result of {@link parseMimeArchive}: the parts, or why the text is not an archive. */
export type MimeParseResult =
  | { readonly ok: true; readonly parts: readonly MimePart[] }
  | { readonly ok: false; readonly reason: string };

const DEFAULT_BOUNDARY = '//';

/** A part with only a Content-Type header, as podlift writes its own parts. */
export function mimePart(contentType: string, content: string): MimePart {
  return { headers: [['Content-Type', contentType]], content };
}

/** The value of a part's header, matched case-insensitively. */
export function mimeHeader(part: MimePart, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return part.headers.find(([n]) => n.toLowerCase() === wanted)?.[1];
}

/**
 * Whether user data is meant as a MIME archive: it starts with a `MIME-Version:` or
 * `Content-Type:` header (Karpenter's test, so the same user data is read the same way).
 */
export function looksLikeMimeArchive(userData: string): boolean {
  const start = userData.trimStart();
  return /^(MIME-Version|Content-Type):/i.test(start);
}

/**
 * Splits a multipart archive into its parts. Accepts CRLF or LF line ends, folded headers,
 * quoted or bare `boundary` parameters, a preamble and an epilogue, and a missing close
 * delimiter when nothing follows the last delimiter (Karpenter's own test data ends so).
 */
export function parseMimeArchive(text: string): MimeParseResult {
  const lines = text.replace(/\r\n/g, '\n').trimStart().split('\n');
  const top = readHeaders(lines, 0);
  if (typeof top === 'string') return { ok: false, reason: top };
  const contentType = top.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1];
  if (contentType === undefined) return { ok: false, reason: 'the archive has no Content-Type header' };
  const media = parseMediaType(contentType);
  if (!media.type.startsWith('multipart/')) {
    return { ok: false, reason: `Content-Type is ${media.type}, not multipart/*` };
  }
  const boundary = media.params.get('boundary');
  if (boundary === undefined || boundary === '') {
    return { ok: false, reason: 'the multipart Content-Type has no boundary parameter' };
  }
  return splitParts(lines.slice(top.next), boundary);
}

function splitParts(body: readonly string[], boundary: string): MimeParseResult {
  const delimiter = `--${boundary}`;
  const kind = (line: string): 'part' | 'close' | undefined => {
    if (!line.startsWith(delimiter)) return undefined;
    const rest = line.slice(delimiter.length);
    if (/^[ \t]*$/.test(rest)) return 'part';
    if (/^--[ \t]*$/.test(rest)) return 'close';
    return undefined;
  };
  const parts: MimePart[] = [];
  let start = -1;
  for (let i = 0; i < body.length; i++) {
    const k = kind(body[i]);
    if (k === undefined) continue;
    if (start >= 0) {
      const part = readPart(body.slice(start, i), parts.length + 1);
      if (typeof part === 'string') return { ok: false, reason: part };
      parts.push(part);
    }
    if (k === 'close') {
      start = -1;
      break;
    }
    start = i + 1;
  }
  if (start >= 0) {
    const rest = body.slice(start);
    if (rest.some((line) => line.trim() !== '')) {
      return {
        ok: false,
        reason: `part ${parts.length + 1} is not closed: the archive does not end with ${delimiter}--`,
      };
    }
  }
  if (parts.length === 0) return { ok: false, reason: `no part starts with a ${delimiter} line` };
  return { ok: true, parts };
}

function readPart(lines: readonly string[], index: number): MimePart | string {
  const headers = readHeaders(lines, 0);
  if (typeof headers === 'string') return `part ${index}: ${headers}`;
  return { headers: headers.headers, content: lines.slice(headers.next).join('\n') };
}

/** Reads `Name: value` lines (with folded continuations) up to the blank line that ends them. */
function readHeaders(
  lines: readonly string[],
  from: number,
): { headers: [string, string][]; next: number } | string {
  const headers: [string, string][] = [];
  for (let i = from; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') return { headers, next: i + 1 };
    if (/^[ \t]/.test(line) && headers.length > 0) {
      const last = headers[headers.length - 1];
      last[1] = `${last[1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0 || !/^[!-9;-~]+$/.test(line.slice(0, colon))) {
      return `line ${JSON.stringify(line)} is not a "Name: value" header`;
    }
    headers.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
  }
  return 'the headers are not followed by a blank line';
}

/** `multipart/mixed; boundary="//"` → type and lower-cased parameter names. */
function parseMediaType(value: string): { type: string; params: Map<string, string> } {
  const [type, ...rest] = value.split(';');
  const params = new Map<string, string>();
  for (const match of rest.join(';').matchAll(/\s*([^=\s;]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^;\s]*)/g)) {
    const quoted = match[3];
    params.set(
      match[1].toLowerCase(),
      quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (match[2] ?? ''),
    );
  }
  return { type: type.trim().toLowerCase(), params };
}

/**
 * Writes parts as one archive, in order. The boundary is `//` unless a part has a line that
 * starts with `--//`; then a longer one no part contains is used.
 */
export function serializeMimeArchive(parts: readonly MimePart[]): string {
  const boundary = chooseBoundary(parts);
  let out = `MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="${boundary}"\n\n`;
  for (const part of parts) {
    out += `--${boundary}\n`;
    for (const [name, value] of part.headers) out += `${name}: ${value}\n`;
    out += `\n${part.content}\n`;
  }
  return `${out}--${boundary}--\n`;
}

function chooseBoundary(parts: readonly MimePart[]): string {
  const clashes = (b: string): boolean =>
    parts.some((p) => p.content.split(/\r?\n/).some((line) => line.startsWith(`--${b}`)));
  let boundary = DEFAULT_BOUNDARY;
  for (let n = 1; clashes(boundary); n++) boundary = `//podlift-${n}//`;
  return boundary;
}
