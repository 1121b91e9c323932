// How the sandbox answers: JSON bodies, bytes, forms.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function send(res: ServerResponse, status: number, body: string | Buffer, type = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify(body), 'application/json', headers);
}

/** A request's body as text (a form, or the JSON of the generation stand-in), at most a megabyte. */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= 1024 * 1024) chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function intParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || !/^-?\d+$/.test(value)) return undefined;
  return Number(value);
}
