// Typed errors. Commands throw these; only the program's top (cli/program.ts runCli) turns them
// into exit codes and messages.

export type ErrorKind =
  | 'usage'
  | 'config'
  | 'service'
  | 'network'
  | 'timeout'
  | 'auth'
  | 'rate_limit'
  | 'check'
  | 'interrupted'
  | 'output'
  | 'changes'
  | 'install'
  | 'unwatched'
  | 'unaudited'
  | 'exit';

export abstract class TallyError extends Error {
  abstract readonly exitCode: number;
  abstract readonly kind: ErrorKind;
  /** HTTP status of the response that caused the error, when there was one. */
  readonly status: number | undefined;
  /** What to try instead, shown on lines of its own (a suggestion, where to find help). */
  readonly hint: string | undefined;

  constructor(message: string, options: { status?: number; cause?: unknown; hint?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
    this.hint = options.hint;
  }
}

/** Bad flags, bad values, bad configuration: exit 2. */
export class UsageError extends TallyError {
  readonly exitCode = 2;
  readonly kind: ErrorKind = 'usage';
}

/** The config file cannot be read; it is left exactly as it is: exit 2. */
export class ConfigError extends UsageError {
  override readonly kind: ErrorKind = 'config';
}

/** The service failed or answered something unusable: exit 1. */
export class ServiceError extends TallyError {
  readonly exitCode: number = 1;
  readonly kind: ErrorKind = 'service';
}

/** The service could not be reached (refused, DNS, reset): exit 1. */
export class NetworkError extends ServiceError {
  override readonly kind: ErrorKind = 'network';
}

/** The whole-command deadline (--timeout) ran out: exit 1. */
export class TimeoutError extends ServiceError {
  override readonly kind: ErrorKind = 'timeout';
}

/** `pricing --diff --exit-code`: the catalog changed (exit 5, as a failed check). */
export class ChangesFound extends TallyError {
  readonly exitCode = 5;
  readonly kind: ErrorKind = 'changes';
}

/** Results could not be written (a full disk): exit 1, said on stderr. */
export class OutputError extends TallyError {
  readonly exitCode = 1;
  readonly kind: ErrorKind = 'output';
}

/** A file tally ships (a schema) is missing or unreadable: the install is damaged (exit 1). */
export class InstallError extends TallyError {
  readonly exitCode = 1;
  readonly kind: ErrorKind = 'install';
  constructor(what: string) {
    super(`the installed program is damaged (${what}); reinstall tally (npm install -g llm-tally, or the release binary)`);
  }
}

/** No credential, a rejected one, or the wrong kind for the endpoint: exit 3. */
export class AuthError extends TallyError {
  readonly exitCode = 3;
  readonly kind: ErrorKind = 'auth';
}

/** Still rate limited after the retry budget: exit 4. */
export class RateLimitError extends TallyError {
  readonly exitCode = 4;
  readonly kind: ErrorKind = 'rate_limit';
}

/** `tally check`: at least one condition failed (its report is already printed): exit 5. */
export class CheckFailed extends TallyError {
  readonly exitCode = 5;
  readonly kind: ErrorKind = 'check';
}

/**
 * `tally run --fail-closed`: the spend could not be read, so the command was stopped (or not
 * started): exit 4, as when the rate limit held.
 */
export class NotWatched extends TallyError {
  readonly exitCode = 4;
  readonly kind: ErrorKind = 'unwatched';
}

/** `tally audit`: the charges or the prices could not be read, so nothing was audited: exit 4 (never "clean"). */
export class NotAudited extends TallyError {
  readonly exitCode = 4;
  readonly kind: ErrorKind = 'unaudited';
}

/** The command has said everything already; the run ends with this exit code (`tally run`: its command's). */
export class QuietExit extends TallyError {
  readonly exitCode: number;
  readonly kind: ErrorKind = 'exit';
  constructor(exitCode: number, message = `exit ${exitCode}`) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Ctrl-C: exit 130. */
export class Interrupted extends TallyError {
  readonly exitCode = 130;
  readonly kind: ErrorKind = 'interrupted';
}

/**
 * A figure a gate needs could not be measured (no earlier catalog to compare with, prices tally
 * cannot read): exit 1, or with --fail-open a WARN "not measured". Never a pass, never a zero.
 */
export class NotMeasured extends ServiceError {}

/** The gateway could not be reached or answered with a failure of its own (network, timeout, 5xx, still rate limited), or a figure could not be measured: what --fail-open forgives. */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof RateLimitError || error instanceof NotMeasured) return true;
  return error instanceof ServiceError && (error.kind === 'network' || error.kind === 'timeout' || (error.status ?? 0) >= 500);
}
