// From a response's bytes to JSON: read within a size limit, a byte order mark dropped, parsed
// losslessly (duplicate keys refused), a compressed body named as such.
import { ServiceError } from '../errors.js';
import { type JsonValue, parseJson } from '../domain/json.js';
import type { TransportResponse } from './transport.js';

export const DEFAULT_MAX_BODY = 50 * 1024 * 1024;

export interface ParsedBody {
  value: JsonValue;
}

/** The whole body, refused past `limit` bytes; a failed read is a network failure. */
export async function readBody(response: TransportResponse, url: URL, limit: number, networkFailure: (error: unknown) => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > limit) {
        response.discard();
        throw new ServiceError(
          `response from ${url.host} is larger than ${limit >= 1024 * 1024 ? `${Math.round(limit / 1024 / 1024)} MB` : `${limit} bytes`}; aborted`,
          { status: response.status },
        );
      }
      // A view, not a copy: the chunk is not reused once read.
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw networkFailure(error);
  }
  return Buffer.concat(chunks);
}

/** RFC 8259 lets a parser ignore a byte order mark, which some servers put first. */
export function withoutByteOrderMark(bytes: Buffer): Buffer {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/** JSON parsed losslessly, or what is wrong with it. */
export function parseBody(text: string): ParsedBody | { problem: string } {
  try {
    return { value: parseJson(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : '';
    return { problem: /^Duplicate key/.test(reason) ? `invalid JSON (${reason.replace(/ encountered.*/, '')})` : 'not JSON' };
  }
}

/** tally asks for no encoding: a compressed body is the server's mistake, said as such (not as "not JSON"). */
export function refuseEncoded(headers: Record<string, string | undefined>, host: string, path: string, status: number): void {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new ServiceError(`${host} sent a ${/^[\w.+-]{1,20}$/.test(encoding) ? encoding : 'compressed'} body for ${path}, though tally sent no Accept-Encoding; it cannot be read`, { status });
  }
}
