// The ledger file a user keeps (`export --append FILE`), read and appended to as carefully as
// tally's own files: the path by the one rule for report files (a link is followed to a regular
// file, refused when it leads nowhere; missing folders are made), opened without blocking, read
// with a size cap, and appended so that the file is always a whole number of rows: a write that
// fails half-way (a full disk, a file size limit) is truncated back to the size it found.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { writeReason } from './files.js';
import { readStateFile } from './read-file.js';
import { reportTarget } from './report-file.js';

/** A ledger is text a person can open: a gigabyte is far beyond any. */
const MAX_LEDGER_BYTES = 1024 * 1024 * 1024;

/** The regular file `path` leads to (made on first append), or a UsageError naming why it cannot be a ledger. */
export function ledgerTarget(path: string, flag = '--append'): string {
  const { target, kind } = reportTarget(path, flag);
  if (kind === 'stream') throw new UsageError(`${flag} ${path} cannot be written: it is a pipe or a device; a ledger is a regular file, read back to leave out the periods it holds (write to a pipe without --append)`);
  return target;
}

/** The file's text; empty when it is not there yet. */
export function readLedgerFile(target: string, flag = '--append'): string {
  try {
    return readStateFile(target, MAX_LEDGER_BYTES).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new UsageError(`${flag} ${target} cannot be read: ${writeReason(error)}`, { cause: error });
  }
}

/**
 * Appends `text` whole or not at all: on a failed write the file is cut back to the size it had,
 * so no row is ever left half-written for the next run to glue onto.
 */
export function appendWhole(target: string, text: string, flag = '--append'): void {
  let fd: number;
  try {
    fd = openSync(target, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOCTTY, 0o644);
  } catch (error) {
    throw new UsageError(`${flag} ${target} cannot be written: ${writeReason(error)}`, { cause: error });
  }
  let size = 0;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${flag} ${target} cannot be written: it is not a regular file`);
    size = stat.size;
    const bytes = Buffer.from(text);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    let restored = true;
    try {
      ftruncateSync(fd, size);
    } catch {
      restored = false;
    }
    throw new UsageError(`${flag} ${target} cannot be written: ${writeReason(error)}; ${restored ? 'the file is as it was before this run' : 'and it could not be cut back to what it held: check its last line'}`, { cause: error });
  } finally {
    closeSync(fd);
  }
}
