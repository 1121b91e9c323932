// Reading back a file of the state folder, which may be anything by now: a FIFO (reading it
// would wait for a writer forever), a link to /dev/urandom (endless), a file of gigabytes. Only
// a regular file of at most `maxBytes` is read; anything else is an error the caller reports
// (or, for a cache, treats as no cache). Opened without waiting, checked on the open descriptor.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';

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

/** How much of a file scanStateFile reads at a time: one small buffer, used again for each piece. */
const PIECE_BYTES = 64 * 1024;

/**
 * A regular file of at most `maxBytes` read a piece at a time into one small buffer: `visit`
 * sees each piece (valid only during the call), where it starts and the file's size, and stops
 * the reading by returning false; `byteAt` reads one byte anywhere in the file. Comparing
 * megabytes this way costs a fraction of reading them whole into fresh memory, and a difference
 * found early ends it there.
 */
export function scanStateFile(path: string, maxBytes: number, visit: (piece: Buffer, offset: number, size: number, byteAt: (position: number) => number | undefined) => boolean): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    checkReadable(stat, path, maxBytes);
    const buffer = Buffer.allocUnsafe(Math.min(PIECE_BYTES, Math.max(stat.size, 1)));
    const one = Buffer.alloc(1);
    const byteAt = (position: number) => (readSync(fd, one, 0, 1, position) === 1 ? one[0] : undefined);
    for (let offset = 0; offset < stat.size; ) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, stat.size - offset), null);
      if (n === 0) throw new UnreadableFile(`${path} ended before its size (${stat.size} bytes)`);
      if (!visit(buffer.subarray(0, n), offset, stat.size, byteAt)) return;
      offset += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A file tally reads back to decide something (the guard's and the status line's caches): read
 * only when it is the user's own regular file that nobody else may write, opened without
 * following a link, in a folder that is no link either and likewise the user's alone. Anything
 * else throws, and the caller learns the figures again (a forged "spent 0" never decides).
 */
export function readOwnStateFile(path: string, maxBytes: number): Buffer {
  const uid = process.getuid?.();
  const folder = path.slice(0, Math.max(0, path.lastIndexOf('/'))) || '/';
  const dir = lstatSync(folder);
  if (dir.isSymbolicLink() || !dir.isDirectory()) throw new UnreadableFile(`${folder} is not a folder of tally's own`);
  if (uid !== undefined && (dir.uid !== uid || (dir.mode & 0o022) !== 0)) throw new UnreadableFile(`${folder} is not the user's own folder, or others may write to it`);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  try {
    const stat = fstatSync(fd);
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) throw new UnreadableFile(`${path} is not the user's own file, or others may write to it`);
    return readOpened(fd, stat, path, maxBytes, Number.MAX_SAFE_INTEGER);
  } finally {
    closeSync(fd);
  }
}

function readOpened(fd: number, stat: import('node:fs').Stats, path: string, maxBytes: number, headBytes: number): Buffer {
  checkReadable(stat, path, maxBytes);
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

/** Only a regular file of at most `maxBytes` is read: anything else throws, saying what it is. */
function checkReadable(stat: import('node:fs').Stats, path: string, maxBytes: number): void {
  if (!stat.isFile()) throw new UnreadableFile(`${path} is not a regular file (${kindOf(stat)})`);
  if (stat.size > maxBytes) throw new UnreadableFile(`${path} is larger than ${maxBytes} bytes`);
}

/** What a file that is not a regular one is, for a message: `a FIFO`, `a device`. */
export function kindOf(stat: import('node:fs').Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  return 'not a file';
}
