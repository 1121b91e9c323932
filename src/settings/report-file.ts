// Files a user names for tally to write (--junit, --textfile, mark --file, and the reports to
// come): the one rule for all of them. Missing parent folders are created as named (as test
// runners do); a regular file, or nothing, is replaced atomically (a link to one replaces the
// file it points to, and the link stays); a FIFO or a character device (/dev/stdout, /dev/null,
// a pipe a user set up) is written in place; anything else is refused with exit 2 and never
// removed or replaced. An error names the real cause.
import { closeSync, constants, lstatSync, mkdirSync, openSync, realpathSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { writeFileAtomic, writeReason } from './files.js';

export interface ReportFileOptions {
  flag: string;
  mode?: number;
  /** Masks the run's secrets: every byte tally writes is scrubbed, files included. */
  scrub: (text: string) => string;
}

/** What a path a user named leads to, by the one rule for report files (parent folders made for a new file). */
export function reportTarget(path: string, flag: string): { target: string; kind: 'missing' | 'file' | 'stream' } {
  const fail = (reason: string, cause?: unknown) => new UsageError(`${flag} ${path} cannot be written: ${reason}`, { cause });
  let target = path;
  let kind: 'missing' | 'file' | 'stream' = 'missing';
  try {
    if (lstatSync(path).isSymbolicLink()) {
      try {
        target = realpathSync(path);
      } catch (error) {
        throw fail(`it is a symbolic link to nothing that exists (${writeReason(error)})`, error);
      }
    }
    const stat = statSync(target);
    if (stat.isFile()) kind = 'file';
    else if (stat.isFIFO() || stat.isCharacterDevice()) kind = 'stream';
    else throw fail(`it is ${stat.isDirectory() ? 'a folder' : stat.isBlockDevice() ? 'a block device' : stat.isSocket() ? 'a socket' : 'not a file'}; tally replaces only regular files, and writes in place only to a pipe or a character device`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fail(writeReason(error), error);
  }
  if (kind === 'missing') {
    try {
      mkdirSync(dirname(target), { recursive: true });
    } catch (error) {
      throw fail(`its folder ${dirname(target)} cannot be made (${writeReason(error)})`, error);
    }
  }
  return { target, kind };
}

export function writeReportFile(path: string, raw: string, options: ReportFileOptions): void {
  const fail = (reason: string, cause?: unknown) => new UsageError(`${options.flag} ${path} cannot be written: ${reason}`, { cause });
  const text = options.scrub(raw);
  const { target, kind } = reportTarget(path, options.flag);
  if (kind === 'stream') return writeInPlace(target, text, fail);
  try {
    writeFileAtomic(target, [text], options.mode === undefined ? {} : { mode: options.mode });
  } catch (error) {
    throw fail((error as { cause?: unknown }).cause ? writeReason((error as { cause?: unknown }).cause) : writeReason(error), error);
  }
}

/** How long a pipe's reader may take nothing before the write gives up. */
const STALLED_READER_MS = 10_000;

/** A pipe or a device: written as it is, never replaced. A pipe with no reader is not waited on. */
function writeInPlace(path: string, text: string, fail: (reason: string, cause?: unknown) => UsageError): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail(code === 'ENXIO' ? 'it is a pipe that nothing is reading' : writeReason(error), error);
  }
  try {
    const bytes = Buffer.from(text);
    let giveUp = Date.now() + STALLED_READER_MS;
    for (let done = 0; done < bytes.length; ) {
      try {
        done += writeSync(fd, bytes, done);
        giveUp = Date.now() + STALLED_READER_MS;
      } catch (error) {
        // A full pipe: its reader takes what was written so far; wait a moment for it, not forever.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        if (Date.now() > giveUp) throw fail(`the pipe's reader stopped reading (${done} of ${bytes.length} bytes written)`);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
    }
  } catch (error) {
    throw fail(writeReason(error), error);
  } finally {
    closeSync(fd);
  }
}
