// No pattern in src/ backtracks on a long text (CONTRACT: no text from the gateway, however long,
// holds a command past --timeout). Every regular-expression literal is analysed by recheck (a
// ReDoS checker: it finds the attack string, not a timing), with no clock involved (a check that
// runs out of time on a loaded machine is made again with more, never counted as a verdict). A pattern it
// finds super-linear is either rewritten as a scan (domain/trim.ts, the secret's line endings,
// the zero test, the URL's user info, the token-class names) or listed here with why its text is
// short by construction: the command line or tally's own words, never the gateway's.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { checkSync } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { compareDecimalText } from '../../src/domain/decimal-text.js';
import { cleanSecretInput } from '../../src/domain/secrets.js';
import { classFields } from '../../src/domain/token-classes.js';
import { trimBoth, trimEnd } from '../../src/domain/trim.js';
import { urlForDisplay } from '../../src/settings/base-url.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/** Polynomial patterns whose input is bounded: file, the pattern's start, and why. */
const BOUNDED: Record<string, string> = {
  "cli/report.ts /^error: (?:option '(\\S+)": "commander's own message about one command-line word",
  'commands/run.ts /.*[\\\\/]/': "the command's name as given after --, on the command line",
  'commands/sandbox.ts /\\.?0+$/': "an amount the sandbox itself formats (8 places)",
  'domain/comparison.ts /^(.+?)\\.\\.(.+)$/': 'the --compare flag, on the command line',
  'mcp/tools.ts /\\s*\\(See `tally[^`]*--help`\\.?\\)/g': "tally's own help text, rewritten for an agent",
  'mcp/tools.ts /\\s*See `tally[^`]*--help`\\.?/g': "tally's own help text, rewritten for an agent",
};

function literals(): { file: string; text: string }[] {
  const found: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) {
        const file = path.slice(src.length + 1);
        const source = ts.createSourceFile(file, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
        const visit = (node: ts.Node) => {
          if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) found.push({ file, text: node.getText(source) });
          ts.forEachChild(node, visit);
        };
        visit(source);
      }
    }
  };
  walk(src);
  return found;
}

describe('regular expressions', () => {
  it('the checker finds a backtracking pattern and passes a linear one', () => {
    expect(checkSync('^(a+)+$', '').status).toBe('vulnerable');
    expect(checkSync('\\/+$', '').status).toBe('vulnerable');
    expect(checkSync('^sk-[A-Za-z0-9_-]{8,}$', '').status).toBe('safe');
  });

  it('in src/ are linear in their input, but for those whose input is bounded by construction', { timeout: 120_000 }, () => {
    const all = literals();
    expect(all.length).toBeGreaterThan(200);
    const superLinear: string[] = [];
    for (const { file, text } of all) {
      const end = text.lastIndexOf('/');
      // The fuzzer's seed fixed; a check that ran out of time on a loaded machine ("unknown": a
      // timeout, never a verdict) is made again with more time before it counts.
      let result = checkSync(text.slice(1, end), text.slice(end + 1), { timeout: 10_000, randomSeed: 42 });
      for (let more = 1; more <= 3 && result.status === 'unknown' && result.error.kind === 'timeout'; more++) result = checkSync(text.slice(1, end), text.slice(end + 1), { timeout: 10_000 * 4 ** more, randomSeed: 42 });
      if (result.status === 'safe') continue;
      const key = Object.keys(BOUNDED).find((k) => `${file} ${text}`.startsWith(k));
      if (!key) superLinear.push(`${file} ${text} (${result.status === 'vulnerable' ? result.complexity.summary : result.status})`);
    }
    expect(superLinear).toEqual([]);
  });
});

describe('the scans that replaced backtracking patterns say what the patterns said', () => {
  // The old patterns are the oracle, on short texts of the characters that matter to them.
  const text = (chars: string) => fc.string({ unit: fc.constantFrom(...chars.split('')), maxLength: 14 });

  it('trimming a repeated character', () => {
    fc.assert(fc.property(text('/_ab'), (t) => {
      expect(trimEnd(t, '/')).toBe(t.replace(/\/+$/, ''));
      expect(trimBoth(t, '_')).toBe(t.replace(/^_+|_+$/g, ''));
    }));
  });

  it("a secret's line endings and the spaces before them", () => {
    fc.assert(fc.property(text(' \t\r\nk'), (t) => {
      const old = t.replace(/^[ \t]+/, '').replace(/[ \t]*(?:\r?\n)*$/, '');
      const now = cleanSecretInput(t);
      if (now.ok) expect(now.secret).toBe(old);
      else if (old === '') expect(now.reason).toBe('no key was given');
    }));
  });

  it('a URL shown without its user info', () => {
    fc.assert(fc.property(text('/@:?#ab'), (t) => {
      const old = t.replace(/[?#].*$/s, (rest) => `${rest[0]}…`).replace(/^([^/@]*\/\/|[^/@]*:)?[^/?#]*@/, (_, scheme: string | undefined) => `${scheme ?? ''}…@`);
      expect(urlForDisplay(t)).toBe(old.length > 120 ? `${old.slice(0, 117)}…` : old);
    }), { numRuns: 2000 });
  });

  it('zero written any way, against a negative', () => {
    fc.assert(fc.property(text('0.1'), text('0.1'), (a, b) => {
      const zero = (t: string) => /^-?0*\.?0*$/.test(t);
      fc.pre(/^\d*\.?\d*$/.test(a) && /^\d*\.?\d*$/.test(b) && /\d/.test(a) && /\d/.test(b));
      const result = compareDecimalText(`-${a}`, b);
      if (zero(a) && zero(b)) expect(result).toBe(0);
      else expect(result).toBe(-1);
    }));
  });

  it('token classes named cache…read and cache…write', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('cache', 'read', 'hit', 'write', 'creation', 'd', '_', 'x', 'C', 'tokens'), maxLength: 6 }).map((s) => s), (name) => {
      const fields = classFields([{ [name]: 1, model: 'm' }]);
      const old = /cache.*(read|hit)|cached|cache_tokens$/i.test(name) ? 'cache_read' : /cache.*(write|creation|created)/i.test(name) ? 'cache_write' : undefined;
      if (old) expect(Object.entries(fields).find(([, v]) => v === name)?.[0]).toBe(old);
    }));
  });
});
