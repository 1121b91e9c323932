// How the sandbox answers: JSON bodies, bytes, forms.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function send(res: ServerResponse, status: number, body: string | Buffer, type = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify(body), 'application/json', headers);
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function intParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || !/^-?\d+$/.test(value)) return undefined;
  return Number(value);
}
