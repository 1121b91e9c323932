// A profile per project: `.tally.json` ({"profile": "NAME"}) in the current folder or one above it
// names the profile the commands (and the statusline) use there, below --profile and TALLY_PROFILE
// and above the active profile. The file is read as tally reads every file: a regular file, a
// few bytes, never followed into a device. It names a profile only, never a key.
import { readStateFile } from './read-file.js';
import { PROFILE_NAME } from './profile-name.js';

export const WORKSPACE_FILE = '.tally.json';

export type WorkspaceChoice = { profile: string; file: string } | { error: string; file: string } | { ignored: string; file: string };

/**
 * The nearest `.tally.json` from `cwd` upward: the profile it names, or why it cannot be used. One
 * that another user owns (a shared parent folder) is ignored, as git ignores a repository someone
 * else owns: it could point this user's runs at a profile they did not choose.
 */
export function workspaceProfile(cwd: string, uid = process.getuid?.()): WorkspaceChoice | undefined {
  let dir = cwd;
  for (let depth = 0; depth < 64; depth++) {
    const file = `${dir === '/' ? '' : dir}/${WORKSPACE_FILE}`;
    let text: string | undefined;
    try {
      const read = readStateFile(file, 64 * 1024, Number.MAX_SAFE_INTEGER, true);
      if (uid !== undefined && read.owner !== uid) {
        return { ignored: `${file} belongs to another user (uid ${read.owner}), so the profile it names is not used; choose one with --profile or TALLY_PROFILE`, file };
      }
      text = read.bytes.toString('utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES') return { error: `${file} cannot be read: ${(error as Error).message}`, file };
    }
    if (text !== undefined) return profileIn(text, file);
    const parent = dir.replace(/\/[^/]*$/, '') || '/';
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

function profileIn(text: string, file: string): { profile: string; file: string } | { error: string; file: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: `${file} is not JSON (it should be {"profile": "NAME"})`, file };
  }
  const profile = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { profile?: unknown }).profile : undefined;
  if (typeof profile !== 'string' || !PROFILE_NAME.test(profile)) return { error: `${file} names no profile (it should be {"profile": "NAME"}, a stored profile's name)`, file };
  return { profile, file };
}
