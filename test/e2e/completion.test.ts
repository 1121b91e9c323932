// Shell completion under a real bash: the script tally prints is sourced, and its completion
// function is asked what it offers, the way bash asks it on Tab. zsh and fish are tried when the
// machine has them.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, hasCommand, NODE, runTally, tempDir, skipWithout } from '../helpers.js';

const bin = tempDir();
const state = tempDir();
afterAll(() => {
  bin.remove();
  state.remove();
});
// `tally` on the PATH, as after `npm install -g`: the script calls it by that name.
writeFileSync(join(bin.path, 'tally'), `#!/bin/sh\nexec "${NODE}" "${BIN}" "$@"\n`);
chmodSync(join(bin.path, 'tally'), 0o755);
writeFileSync(join(state.path, 'config.json'), JSON.stringify({ profiles: { default: { budgets: { monthly: {}, weekly: {} }, notify: { team: {} } }, work: { budgets: { other: {} } }, 'ci.runner': {}, '--json': {} } }), { mode: 0o600 });

const has = hasCommand;

/** What bash's completion function offers for a command line (the cursor at its end). */
function offered(line: string): string[] {
  const words = line.split(' ');
  const script = `
    source <(tally completion bash) 2>/dev/null
    COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
    COMP_CWORD=${words.length - 1}
    COMP_LINE='${line}'
    COMP_POINT=${line.length}
    __tally_complete 2>/dev/null
    printf '%s\\n' "\${COMPREPLY[@]}"
  `;
  const out = execFileSync('bash', ['-c', script], { env: { PATH: `${bin.path}:${process.env.PATH}`, TALLY_CONFIG_DIR: state.path, HOME: state.path } }).toString();
  return out.split('\n').filter(Boolean).sort();
}

describe('tally completion bash, in a real bash', () => {
  it('prints a script that registers a completion for tally', async () => {
    const result = await runTally(['completion', 'bash']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('complete -F __tally_complete tally');
    expect(execFileSync('bash', ['-n', '-c', result.stdout]).toString()).toBe('');
  });

  it('completes commands', () => {
    expect(offered('tally us')).toEqual(['usage']);
    expect(offered('tally st')).toEqual(['status', 'statusline']);
    expect(offered('tally auth ')).toContain('status');
  });

  it('completes a command\'s flags, and the global ones after it', () => {
    expect(offered('tally usage --bu')).toEqual(['--bucket']);
    expect(offered('tally usage --pro')).toEqual(['--profile', '--profiles']);
    expect(offered('tally pricing --so')).toEqual(['--sort']);
  });

  it('completes enumerated values', () => {
    expect(offered('tally usage --bucket ')).toEqual(['day', 'hour', 'month', 'week']);
    expect(offered('tally pricing --sort ')).toEqual(['input', 'name', 'output']);
    expect(offered('tally models --format ')).toEqual(['alt', 'native']);
    expect(offered('tally completion ')).toEqual(['bash', 'fish', 'zsh']);
  });

  it('completes the stored profile names for --profile, never a name that reads as a flag', () => {
    expect(offered('tally --profile ')).toEqual(['ci.runner', 'default', 'work']);
    expect(offered('tally balance --profile w')).toEqual(['work']);
  });

  it('completes the stored budgets and notify destinations of the profile in use', () => {
    expect(offered('tally budget ')).toEqual(['list', 'monthly', 'rm', 'set', 'weekly']);
    expect(offered('tally budget m')).toEqual(['monthly']);
    expect(offered('tally --profile work budget ')).toEqual(['list', 'other', 'rm', 'set']);
    expect(offered('tally notify ')).toEqual(['add', 'list', 'rm', 'test']);
    expect(offered('tally notify test ')).toEqual(['team']);
    // After `budget rm` only budgets stand; a budget gate names one too.
    expect(offered('tally budget rm ')).toEqual(['monthly', 'weekly']);
    expect(offered('tally check --budget ')).toEqual(['monthly', 'weekly']);
    // report --send and check --notify name a destination.
    expect(offered('tally report --send ')).toEqual(['team']);
    expect(offered('tally check --min-balance 1 --notify ')).toEqual(['team']);
  });

  it('completes --compare with previous (and months), and sandbox --fault with its kinds', async () => {
    expect(offered('tally usage --compare p')).toEqual(['previous']);
    expect(offered('tally sandbox --fault r')).toEqual(['rate-limit', 'reset']);
    // Declared once, where the flag is: the sandbox's own list of kinds.
    const { FAULT_KINDS } = await import('../../src/sandbox/faults.js');
    expect(offered('tally sandbox --fault ').sort()).toEqual([...FAULT_KINDS].sort());
  });

  it('completes the profiles for auth switch, and zones for --tz', () => {
    expect(offered('tally auth switch ')).toEqual(['ci.runner', 'default', 'work']);
    expect(offered('tally usage --tz Asia/Shang')).toEqual(['Asia/Shanghai']);
    expect(offered('tally schema u')).toEqual(['usage', 'usage-compare', 'usage-models']);
  });

  it('completes the keys of config get, set and unset', () => {
    expect(offered('tally config set ')).toEqual(['base_url', 'client_id', 'currency', 'device_code_url', 'pricing_ttl', 'rate_source', 'token_url', 'utc_offset']);
    expect(offered('tally config get u')).toEqual(['utc_offset']);
  });

  it('never runs what the typed words hold, and can be sourced again and again', () => {
    const marker = join(state.path, 'pwned');
    // The words as bash holds them when typed: quotes and $( ) unexpanded.
    const typed = [`'x=$(touch ${marker})'`, `$(touch ${marker})`, `\`touch ${marker}\``];
    const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
    const script = [
      'source <(tally completion bash)',
      'source <(tally completion bash)',
      `COMP_WORDS=(tally logs --param ${quoted(typed[0]!)} '')`,
      'COMP_CWORD=4',
      '__tally_complete',
      `COMP_WORDS=(tally logs ${quoted(typed[1]!)} ${quoted(typed[2]!)} --a)`,
      'COMP_CWORD=4',
      '__tally_complete',
      `printf '%s\\n' "\${COMPREPLY[@]}"`,
    ].join('\n');
    const result = spawnSync('bash', ['-c', script], { env: { PATH: `${bin.path}:${process.env.PATH}`, TALLY_CONFIG_DIR: state.path, HOME: state.path } });
    expect(result.stderr.toString()).toBe('');
    expect(existsSync(marker)).toBe(false);
    expect(result.stdout.toString().split('\n').filter(Boolean).sort()).toEqual(['--all', '--all-profiles', '--allow-http']);
  });
});

describe.skipIf(skipWithout(has('zsh')))('tally completion zsh', () => {
  it('is a script zsh reads without error', async () => {
    const script = (await runTally(['completion', 'zsh'])).stdout;
    expect(execFileSync('zsh', ['-n', '-c', script]).toString()).toBe('');
  });

  it('lists the values of a closed set, and nothing else, when Tab is pressed in an interactive zsh', () => {
    // zsh's own completion system in a pseudo-terminal (zsh/zpty), as a person presses Tab.
    const driver = `
      zmodload zsh/zpty
      zpty z zsh -f -i
      zpty -w z "PS1='> '; autoload -U compinit; compinit -u; source <(tally completion zsh); compdef _tally tally"
      sleep 1
      zpty -n -w z $'tally usage --bucket \\t'
      sleep 3
      out=""
      while zpty -r -t z chunk; do out+=$chunk; done
      print -r -- "$out"
      zpty -d z`;
    const result = spawnSync('zsh', ['-f', '-c', driver], { env: { PATH: `${bin.path}:${process.env.PATH}`, TALLY_CONFIG_DIR: state.path, HOME: state.path, TERM: 'xterm' }, timeout: 30_000 });
    const screen = result.stdout.toString().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split(/\r?\n|\r/);
    const listed = screen.find((line) => /\bhour\b/.test(line) && /\bweek\b/.test(line))!;
    expect(listed, screen.join('\n')).toBeDefined();
    expect(listed.trim().split(/\s+/).sort()).toEqual(['day', 'hour', 'month', 'week']);
  });
});

describe.skipIf(skipWithout(has('fish')))('tally completion fish', () => {
  it('is a script fish reads without error', async () => {
    const script = (await runTally(['completion', 'fish'])).stdout;
    expect(execFileSync('fish', ['--no-execute', '-c', script]).toString()).toBe('');
  });
});

describe('whatif --swap', () => {
  it('offers the models of the catalog tally cached for the profile\'s gateway (no request at a Tab)', async () => {
    const { clockStartingAt, startSandbox } = await import('../../src/sandbox/server.js');
    const sandbox = await startSandbox({ now: clockStartingAt(Date.UTC(2026, 10, 20)) });
    const own = tempDir();
    try {
      const env = { TALLY_CONFIG_DIR: own.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
      expect((await runTally(['complete', '--', 'whatif', '--swap', 'gpt'], { env })).stdout).toBe(':4\n');
      expect((await runTally(['pricing'], { env })).code).toBe(0);
      const asked = sandbox.requests.length;
      const offered = (await runTally(['complete', '--', 'whatif', '--swap', 'gpt-5'], { env })).stdout.split('\n').filter((l) => l && !l.startsWith(':')).map((l) => l.split('\t')[0]);
      expect(offered).toEqual(['gpt-5', 'gpt-5-codex', 'gpt-5-mini', 'gpt-5-nano']);
      expect(sandbox.requests.length).toBe(asked);
    } finally {
      own.remove();
      await sandbox.close();
    }
  });
});

describe('completion follows the profile in use, and the pairs of --swap', () => {
  /** What bash offers, its words split as readline splits them (at = too), in a state folder of the test's own. */
  function offeredIn(dir: string, line: string, cwd?: string): string[] {
    const words = line.split(' ').flatMap((word) => word.split(/(=)/).filter((part, i, all) => part !== '' || i === all.length - 1));
    const script = `
      source <(tally completion bash) 2>/dev/null
      COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
      COMP_CWORD=${words.length - 1}
      COMP_LINE='${line}'
      COMP_POINT=${line.length}
      __tally_complete 2>/dev/null
      printf '%s\\n' "\${COMPREPLY[@]}"
    `;
    const out = execFileSync('bash', ['-c', script], { cwd, env: { PATH: `${bin.path}:${process.env.PATH}`, TALLY_CONFIG_DIR: dir, HOME: dir } }).toString();
    return out.split('\n').filter(Boolean).sort();
  }

  it("offers the budgets and destinations of the active profile, or of the folder's .tally.json", () => {
    const own = tempDir();
    try {
      writeFileSync(join(own.path, 'config.json'), JSON.stringify({ active: 'work', profiles: { default: { budgets: { monthly: {} } }, work: { budgets: { other: {} }, notify: { pager: {} } }, team: { budgets: { shared: {} } } } }), { mode: 0o600 });
      expect(offeredIn(own.path, 'tally budget rm ')).toEqual(['other']);
      expect(offeredIn(own.path, 'tally check --notify ')).toEqual(['pager']);
      expect(offeredIn(own.path, 'tally --profile default budget rm ')).toEqual(['monthly']);
      const project = join(own.path, 'project');
      mkdirSync(project);
      writeFileSync(join(project, '.tally.json'), '{"profile": "team"}');
      expect(offeredIn(own.path, 'tally budget rm ', project)).toEqual(['shared']);
    } finally {
      own.remove();
    }
  });

  it('offers MODEL=OTHER after --swap MODEL=, as readline splits the word', async () => {
    const { clockStartingAt, startSandbox } = await import('../../src/sandbox/server.js');
    const sandbox = await startSandbox({ now: clockStartingAt(Date.UTC(2026, 10, 20)) });
    const own = tempDir();
    try {
      expect((await runTally(['pricing'], { env: { TALLY_CONFIG_DIR: own.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey } })).code).toBe(0);
      writeFileSync(join(own.path, 'config.json'), JSON.stringify({ profiles: { default: { base_url: sandbox.baseUrl } } }), { mode: 0o600 });
      // readline replaces the part after the = : bash is given what follows it.
      expect(offeredIn(own.path, 'tally whatif --swap claude-sonnet-4.5=deep')).toEqual(['deepseek-chat', 'deepseek-reasoner']);
      expect(offeredIn(own.path, 'tally whatif --swap claude-sonnet-4.5=')).toContain('gpt-5-mini');
      expect(offeredIn(own.path, 'tally whatif --swap claude-sonnet-4.5=')).not.toContain('claude-sonnet-4.5');
      // zsh and fish take whole words: the program offers the pairs.
      const pairs = (await runTally(['complete', '--', 'whatif', '--swap', 'claude-sonnet-4.5=deep'], { env: { TALLY_CONFIG_DIR: own.path } })).stdout;
      expect(pairs).toBe('claude-sonnet-4.5=deepseek-chat\nclaude-sonnet-4.5=deepseek-reasoner\n:4\n');
    } finally {
      own.remove();
      await sandbox.close();
    }
  });
});
