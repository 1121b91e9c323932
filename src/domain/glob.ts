// Shell-style globs for model names (`tally pricing --model 'gpt-5*'`).

type GlobToken = { kind: 'star' } | { kind: 'any' } | { kind: 'char'; char: string } | { kind: 'set'; negated: boolean; ranges: [string, string][] };

/**
 * A shell-style glob (`*`, `?`, `[abc]`, `[!a-z]`, `\` escapes) as a whole-name,
 * case-insensitive matcher that runs in time linear in the name's length (times the pattern's).
 * Not a regular expression: a backtracking regex takes seconds on `*a*a*b*` against a long name,
 * and the glob libraries (picomatch, zeptomatch) compile to one; minimatch treats `/`, common in
 * model names, as a path separator.
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const tokens: GlobToken[] = [];
  const chars = Array.from(glob.toLowerCase());
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'any' });
    else if (char === '\\' && i + 1 < chars.length) tokens.push({ kind: 'char', char: chars[++i]! });
    else if (char === '[') {
      const set = readSet(chars, i + 1);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else tokens.push({ kind: 'char', char });
    } else tokens.push({ kind: 'char', char });
  }
  return (name) => {
    const lower = name.toLowerCase();
    // A character per index, as the tokens hold them: a string is that already unless it has a
    // surrogate pair (a character outside the BMP), and splitting thousands of names cost more
    // than matching them.
    return matchTokens(tokens, SURROGATE.test(lower) ? Array.from(lower) : lower);
  };
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** `[...]` from just after the bracket: its ranges and where it ends, or undefined when it never closes. */
function readSet(chars: string[], from: number): { token: GlobToken; end: number } | undefined {
  let i = from;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  // A ] right after the bracket (or its negation) is a member.
  for (let first = true; i < chars.length; first = false) {
    const char = chars[i]!;
    if (char === ']' && !first) return { token: { kind: 'set', negated, ranges }, end: i };
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      ranges.push([char, chars[i + 2]!]);
      i += 3;
    } else {
      ranges.push([char, char]);
      i++;
    }
  }
  return undefined;
}

function matchOne(token: GlobToken, char: string): boolean {
  switch (token.kind) {
    case 'any': return true;
    case 'char': return token.char === char;
    case 'set': return token.ranges.some(([low, high]) => char >= low && char <= high) !== token.negated;
    case 'star': return false;
  }
}

/**
 * The two-pointer wildcard match: on a mismatch, the last star takes one more character. Each
 * character of the name is looked at once per pattern position at most.
 */
function matchTokens(tokens: GlobToken[], name: ArrayLike<string>): boolean {
  let t = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const token = tokens[t];
    if (token && token.kind !== 'star' && matchOne(token, name[n]!)) {
      t++;
      n++;
    } else if (token?.kind === 'star') {
      star = t++;
      resume = n;
    } else if (star >= 0) {
      t = star + 1;
      n = ++resume;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}
