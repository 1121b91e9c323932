// Every wait for a lock tally holds across processes (the ledger being appended to, the alert
// and report memory, settings): one rule. It says on stderr what it waits for, and for how long;
// it ends with the run's deadline (--timeout: exit 1, "timed out waiting for …") or Ctrl-C (130),
// never with an unexplained failure; without a deadline it waits at most `MAX_WAIT_MS`.
import type { Context } from './context.js';
import { TimeoutError } from './errors.js';
import { withLockFile } from './settings/files.js';

/** How long a run with no --timeout waits for another tally before giving up (exit 2, said why). */
const MAX_WAIT_MS = 10 * 60_000;

/**
 * Runs `work` holding `lockPath`. `what` names what is locked, for a person: "the ledger
 * ledger.csv", "the alert memory".
 */
export async function withRunLock(ctx: Context, lockPath: string, what: string, work: () => void | Promise<void>): Promise<void> {
  const left = ctx.deadline - ctx.now();
  const waitMs = Number.isFinite(left) ? Math.max(0, left) : MAX_WAIT_MS;
  const bound = Number.isFinite(left) ? `until --timeout (${Math.ceil(waitMs / 1000)}s)` : `up to ${MAX_WAIT_MS / 60_000} minutes`;
  try {
    await withLockFile(lockPath, work, {
      waitMs,
      signal: ctx.signal,
      onWait: (_message, why) => ctx.note(`waiting for ${what}: it is ${why}; waiting ${bound}, Ctrl-C to stop…`),
    });
  } catch (error) {
    if (!ctx.signal.aborted) throw error;
    const stop = ctx.abortError();
    if (stop instanceof TimeoutError) throw new TimeoutError(`timed out after ${ctx.options.timeout}s waiting for ${what}, which another tally process holds`);
    throw stop;
  }
}
