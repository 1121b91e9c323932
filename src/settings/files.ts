// Files in the state folder: folders tally creates are 0700 (and only those are ever changed),
// every write goes through a temporary file and a rename (a reader sees the old file or the new
// one), and a write that fails leaves nothing behind and says why in words.
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { UnreadableFile, kindOf, readStateFile } from './read-file.js';
import { abortableSleep } from '../abortable.js';
import { dirname } from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * Creates a folder and its missing parents as 0700. Folders that exist already are left as
 * they are: a folder tally did not create is the user's (a shared 1777 /tmp, a read-only 0500).
 * `own`: one of tally's own folders in the state folder (cache/, state/, kept versions), which
 * is never followed through a symbolic link (tally would write into, and prune, another folder).
 */
export function ensurePrivateDir(dir: string, options: { own?: boolean } = {}): void {
  makePrivateDir(dir);
  if (!options.own) return;
  let link = false;
  try {
    link = lstatSync(dir).isSymbolicLink();
  } catch (error) {
    throw writeError(dir, error);
  }
  if (link) throw new ConfigError(`refusing to use ${dir}: it is a symbolic link, and tally never follows one out of its own folders (remove the link; tally makes the folder)`);
}

function makePrivateDir(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    try {
      statSync(at);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(at, error);
      missing.push(at);
      if (dirname(at) === at) break;
    }
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw writeError(folder, error);
    }
  }
}

/** Why a write failed, in words (`permission denied`, `no space left on the device`). */
export function writeReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOSPC' ? 'no space left on the device'
    : code === 'EDQUOT' ? 'the disk quota is used up'
    : code === 'EROFS' ? 'the file system is read-only'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOTDIR' ? 'a part of the path is not a folder'
    : code === 'ELOOP' ? 'too many symbolic links'
    : code === 'EISDIR' ? 'it is a folder'
    : code === 'EFBIG' ? 'the file would grow past the size this process may write (a file size limit)'
    : error instanceof ConfigError ? error.message
    : (error as Error).message;
}

/** What a failed write of the state folder says: the path and the reason in words. */
export function writeError(path: string, error: unknown): ConfigError {
  return new ConfigError(`cannot write ${path}: ${writeReason(error)} (set TALLY_CONFIG_DIR to a folder tally may write)`, { cause: error });
}

/**
 * Writes a file from its parts through a temporary file beside it and a rename, mode 0600. A
 * symbolic link in the file's place is refused (tally never writes through one). On any failure
 * the temporary file is removed and a ConfigError names the path and the reason.
 */
export function writeFileAtomic(path: string, parts: (string | Uint8Array)[], options: { durable?: boolean; mode?: number } = {}): void {
  try {
    if (lstatSync(path).isSymbolicLink()) throw new ConfigError(`refusing to write ${path}: it is a symbolic link (tally writes only files of its own)`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(path, error);
  }
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(temporary, 'wx', options.mode ?? 0o600);
    // The umask may have narrowed it: a file others must read (a metrics file) gets its mode.
    if (options.mode !== undefined) process.getBuiltinModule('node:fs').fchmodSync(fd, options.mode);
    for (const part of parts) {
      const bytes = typeof part === 'string' ? Buffer.from(part) : part;
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
    }
    // Settings must survive a crash; a cache may be lost (and a 3 MB fsync costs milliseconds).
    if (options.durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, path);
  } catch (error) {
    if (fd !== undefined) {
      try { closeSync(fd); } catch { /* already closed */ }
    }
    try { unlinkSync(temporary); } catch { /* never created */ }
    throw writeError(path, error);
  }
}

/** A lock whose content cannot be a live holder's (not a pid) and older than this is taken over. */
const LOCK_STALE_MS = 10_000;

export interface LockOptions {
  /** How long to wait for a live holder before giving up (ms). */
  waitMs?: number;
  /** Ends the wait (Ctrl-C, --timeout): it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Said once when the lock is not free at once: what is waited for, and why (who holds it). */
  onWait?: (message: string, why: string) => void;
}

/**
 * Runs `work` holding a lock file made with O_EXCL (its content the holder's pid), so that two
 * tally processes never do it at once: settings written read-modify-write, alerts sent and
 * recorded. The lock of a live holder is never taken over, however old; one whose holder is gone
 * is. Waiting obeys `signal` and gives up after `waitMs`, naming the lock and why; a lock that is
 * not a file tally made (a FIFO), or one that cannot be removed, is waited on the same way, never
 * spun on.
 */
export async function withLockFile(lockPath: string, work: () => void | Promise<void>, options: LockOptions = {}): Promise<void> {
  ensurePrivateDir(dirname(lockPath));
  const giveUp = Date.now() + (options.waitMs ?? 5_000);
  let said = false;
  let why = 'held by another tally process';
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError(lockPath, error);
      const holder = lockHolder(lockPath);
      why = holder.why;
      if (holder.stale) {
        try {
          unlinkSync(lockPath);
          continue;
        } catch (unlinkError) {
          // Another process removed it first: try again; one tally may not remove is waited on.
          if ((unlinkError as NodeJS.ErrnoException).code === 'ENOENT') continue;
          why = `${holder.why}, and it cannot be removed (${writeReason(unlinkError)})`;
        }
      }
      if (Date.now() > giveUp) throw new ConfigError(`${lockPath} is ${why}; try again, or remove the lock file if no tally is running`);
      if (!said && attempt > 3) {
        said = true;
        options.onWait?.(`waiting for ${lockPath} (${why})…`, why);
      }
      await abortableSleep(Math.min(25 + attempt * 10, 200), options.signal);
    }
  }
  try {
    await work();
  } finally {
    try { unlinkSync(lockPath); } catch { /* already gone */ }
  }
}


/** Whether a lock's holder is gone (its pid not running), and who holds it, in words. */
function lockHolder(lockPath: string): { stale: boolean; why: string } {
  let age: number;
  let text: string;
  try {
    age = Date.now() - lstatSync(lockPath).mtimeMs;
    // Read as every file tally keeps is: a FIFO or a huge file is no lock tally made.
    text = readStateFile(lockPath, 64).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stale: true, why: 'gone' };
    return { stale: true, why: `not a lock tally made (${(error as Error).message})` };
  }
  // A holder writes its pid at once: an empty lock is one that died in between.
  if (text === '') return { stale: age > 1000, why: 'being taken by another tally process' };
  const pid = Number(text);
  if (!Number.isSafeInteger(pid) || pid <= 0) return { stale: age > LOCK_STALE_MS, why: 'not a lock tally made' };
  if (!processExists(pid)) return { stale: true, why: `held by process ${pid}, which is gone` };
  return { stale: false, why: `held by tally process ${pid}, still running` };
}

/** Whether a process (or, negative, a process group) exists: signal 0 checks without sending; one that runs as another user (EPERM) exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Appends to a file tally was pointed at ($GITHUB_STEP_SUMMARY), as carefully as it reads one:
 * opened without waiting (a FIFO nothing reads is refused, never waited on) and only when it is a
 * regular file (made if missing).
 */
export function appendToFile(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, 0o644);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFile(`${path} is not a regular file (${kindOf(stat)})`);
    const bytes = Buffer.from(text);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  } finally {
    closeSync(fd);
  }
}
