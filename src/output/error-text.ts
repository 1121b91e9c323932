// What an error says to a person or a script: its message and hint with secrets masked and
// control characters escaped, its kind and the HTTP status behind it. cli/program.ts prints it and picks
// the exit code; --watch prints it for a refresh that failed and carries on.
import { TallyError } from '../errors.js';
import type { SecretSet } from '../domain/secrets.js';
import { escapeControl } from './escape.js';
import { elided } from '../domain/words.js';

export interface ErrorText {
  kind: string;
  message: string;
  /** Lines to print after the message (a suggestion, where help is). */
  hint: string[] | undefined;
  status: number | undefined;
  /** Whether tally knew this error (a typed error) rather than failing unexpectedly. */
  known: boolean;
}

export function errorText(error: unknown, secrets: SecretSet): ErrorText {
  const known = error instanceof TallyError ? error : undefined;
  // A value quoted back (a megabyte of --since) is cut, never repeated whole to a terminal or an agent.
  const clean = (text: string) => escapeControl(secrets.scrubMessage(elided(text)));
  const raw = known ? known.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  return {
    kind: known?.kind ?? 'internal',
    message: clean(raw),
    hint: known?.hint?.split('\n').map(clean),
    status: known?.status,
    known: known !== undefined,
  };
}

/** The JSON error object: `{"error": {"kind", "message", "status"}}` (the hint joined into the message). */
export function errorJson(text: ErrorText): string {
  const body: Record<string, unknown> = { kind: text.kind, message: text.hint ? `${text.message} (${text.hint.join(' ')})` : text.message };
  if (text.status !== undefined) body.status = text.status;
  return JSON.stringify({ error: body });
}
