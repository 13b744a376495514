/** Writing JSON and plain-text answers and reading request bodies, as the fake server does for every route. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers `payload` as JSON with `status` (the client-node refuses a body without a JSON content type). */
export function respond(
  response: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Go's `http.NotFound`: plain text, as the API server's last delegate answers. */
export function respondText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** The request body as UTF-8 text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
