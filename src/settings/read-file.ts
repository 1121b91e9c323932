// Reading back a file of the state folder, which may be anything by now: a FIFO (reading it
// would wait for a writer forever), a link to /dev/urandom (endless), a file of gigabytes. Only
// a regular file of at most `maxBytes` is read; anything else is an error the caller reports
// (or, for a cache, treats as no cache). Opened without waiting, checked on the open descriptor.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** What was wrong with the file, for a message: `a FIFO`, `larger than 4 MB`. */
export class UnreadableFile extends Error {
  readonly code = 'EUNREADABLE';
}

/** The file's bytes (only its first `headBytes` when given: a log of which only the start is needed), with its owner when asked. */
export function readStateFile(path: string, maxBytes: number, headBytes?: number): Buffer;
export function readStateFile(path: string, maxBytes: number, headBytes: number, withOwner: true): { bytes: Buffer; owner: number };
export function readStateFile(path: string, maxBytes: number, headBytes = Number.MAX_SAFE_INTEGER, withOwner = false): Buffer | { bytes: Buffer; owner: number } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    const bytes = readOpened(fd, stat, path, maxBytes, headBytes);
    return withOwner ? { bytes, owner: stat.uid } : bytes;
  } finally {
    closeSync(fd);
  }
}

function readOpened(fd: number, stat: import('node:fs').Stats, path: string, maxBytes: number, headBytes: number): Buffer {
  {
    if (!stat.isFile()) throw new UnreadableFile(`${path} is not a regular file (${kindOf(stat)})`);
    if (stat.size > maxBytes) throw new UnreadableFile(`${path} is larger than ${maxBytes} bytes`);
    const size = Math.min(stat.size, headBytes);
    const buffer = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, buffer, done, size - done, null);
      if (n === 0) break;
      done += n;
    }
    return done === size ? buffer : buffer.subarray(0, done);
  }
}

/** What a file that is not a regular one is, for a message: `a FIFO`, `a device`. */
export function kindOf(stat: import('node:fs').Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  return 'not a file';
}
