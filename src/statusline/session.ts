// An agent's session, as its status line hands it over: Claude Code's `statusLine` command gets
// a JSON document on stdin (model, folders, session id, transcript path, its own cost estimate
// at list prices). tally reads the model's display name, the folder and when the session began
// (the first entry of its transcript), and keeps, per gateway and credential, what the key spent
// since then (from the gateway's per-call log, refreshed in the background). Unknown fields are
// ignored; input that is not such a document is no session (the plain line). Everything read is
// data: escaped before it reaches the line.
import { readOwnStateFile, readStateFile } from '../settings/read-file.js';
import { readStdin } from './stdin.js';
import { isKeptDecimal } from '../domain/decimal-text.js';
import { cachePath, credentialId } from '../settings/cache-key.js';
import type { StatuslineIdentity } from './cache.js';

export interface AgentSession {
  /** The model's display name (`Opus`), else its id. */
  model?: string;
  /** The folder the session works in (workspace.current_dir, else cwd). */
  dir?: string;
  /** The project's folder (workspace.project_dir, else the session's folder): where its .tally.json is looked for. */
  project?: string;
  id?: string;
  transcript?: string;
}

/** What the key spent since the session began, as last fetched. */
export interface SessionSpend {
  id: string;
  /** Unix seconds. */
  started: number;
  spent: string;
  currency: string;
  complete: boolean;
  /** ISO 8601. */
  fetched_at: string;
}

export const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** The launcher runs the fast path and then, when it cannot answer, the full program in the same process: stdin is read once. */
const STDIN = Symbol.for('tally.statusline.stdin');

/** The session on stdin, read once per process; undefined when stdin is a terminal, empty, or not a session document. */
export function sessionFromStdin(): Promise<AgentSession | undefined> {
  const store = globalThis as unknown as Record<symbol, Promise<AgentSession | undefined> | undefined>;
  store[STDIN] ??= readStdin().then(parseSession);
  return store[STDIN];
}

/** The fields tally uses, from the document an agent sends; undefined for anything else. */
export function parseSession(text: string | undefined): AgentSession | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const d = doc as Record<string, unknown>;
  const text_ = (v: unknown) => (typeof v === 'string' && v !== '' && v.length <= 4096 ? v : undefined);
  const field = (o: unknown, name: string) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[name] : undefined);
  const session: AgentSession = {};
  const model = text_(field(d.model, 'display_name')) ?? text_(field(d.model, 'id')) ?? text_(d.model);
  const dir = text_(field(d.workspace, 'current_dir')) ?? text_(d.cwd);
  const project = text_(field(d.workspace, 'project_dir')) ?? dir;
  const id = text_(d.session_id);
  const transcript = text_(d.transcript_path);
  if (model) session.model = model;
  if (dir) session.dir = dir;
  // Only an absolute folder: a relative one would be read from wherever the status line runs.
  if (project?.startsWith('/')) session.project = project;
  if (id && SESSION_ID.test(id)) session.id = id;
  if (transcript) session.transcript = transcript;
  return Object.keys(session).length > 0 ? session : undefined;
}

/** When the session began: the first timestamped entry of its transcript (JSON lines), read from its first 256 kB. */
export function transcriptStart(path: string | undefined): number | undefined {
  if (path === undefined) return undefined;
  let head: string;
  try {
    head = readStateFile(path, Number.MAX_SAFE_INTEGER, 256 * 1024).toString('utf8');
  } catch {
    return undefined;
  }
  for (const line of head.split('\n')) {
    if (!line.includes('"timestamp"')) continue;
    try {
      const entry = JSON.parse(line) as { timestamp?: unknown };
      const t = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
      if (Number.isFinite(t)) return Math.floor(t / 1000);
    } catch {
      // A line cut at the end of what was read, or not JSON: the next one.
    }
  }
  return undefined;
}

// One small file per gateway and credential holds the spend of the last few sessions.
const KEPT_SESSIONS = 16;

export function sessionsPath(stateDir: string, who: StatuslineIdentity): string {
  return cachePath(stateDir, `statusline-sessions-${who.profile}`, who.baseUrl, who.secret);
}


/** The sessions the file holds for this identity (anything tally did not write is no entry). */
export function readSessions(stateDir: string, who: StatuslineIdentity): SessionSpend[] {
  let file: unknown;
  try {
    file = JSON.parse(readOwnStateFile(sessionsPath(stateDir, who), 64 * 1024).toString('utf8'));
  } catch {
    return [];
  }
  if (typeof file !== 'object' || file === null) return [];
  const f = file as { base_url?: unknown; credential_id?: unknown; sessions?: unknown };
  if (f.base_url !== who.baseUrl.href || f.credential_id !== credentialId(who.secret) || !Array.isArray(f.sessions)) return [];
  return f.sessions.filter((s): s is SessionSpend => {
    if (typeof s !== 'object' || s === null) return false;
    const e = s as Record<string, unknown>;
    return (
      typeof e.id === 'string' && SESSION_ID.test(e.id) &&
      Number.isSafeInteger(e.started) &&
      isKeptDecimal(e.spent) &&
      typeof e.currency === 'string' && /^[A-Z]{3}$/.test(e.currency) &&
      typeof e.complete === 'boolean' &&
      typeof e.fetched_at === 'string' && Number.isFinite(Date.parse(e.fetched_at))
    );
  });
}

/** The file's new contents with this session's spend first (the oldest dropped past a few). */
export function withSession(who: StatuslineIdentity, kept: SessionSpend[], spend: SessionSpend): string {
  const sessions = [spend, ...kept.filter((s) => s.id !== spend.id)].slice(0, KEPT_SESSIONS);
  return JSON.stringify({ base_url: who.baseUrl.href, credential_id: credentialId(who.secret), sessions });
}
