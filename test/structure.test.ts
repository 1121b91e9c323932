// The layout the code keeps (../STYLE.md, and CONTRIBUTING.md): commands only ask and
// show, dependencies point down, no import circle, no file that holds several concerns. Read
// from the source with TypeScript's own import scanner: static, dynamic and type-only imports.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every file's imports of other source files, as paths relative to src/. */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const scanned = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = scanned.importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(root, resolve(dirname(file), name.replace(/\.js$/, '.ts'))));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The import circles (strongly connected groups of more than one file, or a file that imports itself). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const graph = importGraph(src);
const lines = (file: string) => readFileSync(join(src, file), 'utf8').split('\n').length;

describe('the import walk', () => {
  it('finds a circle where there is one, through dynamic and type-only imports too', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(circles(new Map([['a', ['a']]]))).toEqual([['a']]);
    expect(circles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
    // The scanner sees every kind of import.
    const scanned = ts.preProcessFile("import type { A } from './a.js';\nconst b = await import('./b.js');\nexport { c } from './c.js';", true, true);
    expect(scanned.importedFiles.map((f) => f.fileName)).toEqual(['./a.js', './b.js', './c.js']);
  });

  it('reads the source: every command is in it', () => {
    expect(graph.get('cli/registry.ts')).toContain('commands/usage.ts');
    expect(graph.size).toBeGreaterThan(100);
  });
});

describe('the layout', () => {
  it('has no import circle anywhere in src/', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no command that imports another command', () => {
    const crossing = [...graph].flatMap(([file, targets]) => (file.startsWith('commands/') ? targets.filter((t) => t.startsWith('commands/')).map((t) => `${file} -> ${t}`) : []));
    expect(crossing).toEqual([]);
  });

  it('holds only commands in src/commands/: each one the registry loads', () => {
    const loaded = new Set(graph.get('cli/registry.ts'));
    const files = [...graph.keys()].filter((f) => f.startsWith('commands/'));
    expect(files.filter((f) => !loaded.has(f))).toEqual([]);
  });

  it('keeps dependencies pointing down: figures, api, settings, domain and output import no command, and nothing below the CLI imports the registry', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      /^(figures|api|settings|domain|output|notify)\//.test(file) ? targets.filter((t) => t.startsWith('commands/') || t === 'cli/registry.ts').map((t) => `${file} -> ${t}`) : [],
    );
    expect(upward).toEqual([]);
    const registryUsers = [...graph].filter(([, targets]) => targets.includes('cli/registry.ts')).map(([file]) => file);
    expect(registryUsers.sort()).toEqual(['cli/program.ts']);
  });

  it('keeps figures free of views and flags: figures/ imports nothing of output/, cli/, flags/ or loops/ (a figure returns data; words and digits are the view\'s, flags the command\'s)', () => {
    const upward = [...graph].flatMap(([file, targets]) => (file.startsWith('figures/') ? targets.filter((t) => /^(output|cli|flags|loops)\//.test(t)).map((t) => `${file} -> ${t}`) : []));
    expect(upward).toEqual([]);
  });

  it("keeps the rules out of views: output/ takes from figures/ their types and their documents' builders (*Json) only, never a rule (a count, a sum, a word for a figure is the figure's, or domain's)", () => {
    // The check itself: a rule imported by value is found, a type or a document's builder is not.
    const rules = (text: string) =>
      [...text.matchAll(/^import \{([^}]*)\} from '\.\.\/figures\/[^']+';$|\{([^}]*)\} = await import\('\.\.\/figures\//gm)].flatMap((m) =>
        (m[1] ?? m[2]!).split(',').map((n) => n.trim().split(':')[0]!.trim()).filter((n) => n !== '' && !n.startsWith('type ') && !/Json$/.test(n)),
      );
    expect(rules("import { type LoadedAudit, unexplained } from '../figures/audit.js';\nimport type { Report } from '../figures/report.js';\nimport { budgetJson } from '../figures/budgets.js';")).toEqual(['unexplained']);
    expect(rules("const { DAY_RULE: rule } = await import('../figures/anomalies.js');")).toEqual(['DAY_RULE']);
    const found = [...graph.keys()].filter((file) => file.startsWith('output/')).flatMap((file) => rules(readFileSync(join(src, file), 'utf8')).map((n) => `${file}: ${n}`));
    expect(found).toEqual([]);
  });

  it("keeps the program's top in cli/ and apart: no source file beside cli/ is the program's, nothing below it imports cli/ (main, the parser, the registry) but the command contract's type, and flags/ and loops/ import no command", () => {
    expect(['main.ts', 'cli.ts', 'fast.ts'].filter((f) => existsSync(join(src, f)))).toEqual([]);
    const top = (t: string) => t.startsWith('cli/') && t !== 'cli/command.ts';
    const upward = [...graph].flatMap(([file, targets]) => (!file.startsWith('cli/') ? targets.filter(top).map((t) => `${file} -> ${t}`) : []));
    expect(upward).toEqual([]);
    const helpersUp = [...graph].flatMap(([file, targets]) => (/^(flags|loops)\//.test(file) ? targets.filter((t) => t.startsWith('commands/') || t.startsWith('cli/')).map((t) => `${file} -> ${t}`) : []));
    expect(helpersUp).toEqual([]);
  });

  it('writes config.json one way: through conf (settings/store.ts) only; every other file of the state folder through the careful writer, never conf', () => {
    const sources = [...graph.keys()].map((file) => [file, readFileSync(join(src, file), 'utf8')] as const);
    const usesConf = sources.filter(([, text]) => /from 'conf'|importExternal<[^>]*'conf'>|import\('conf'\)/.test(text)).map(([file]) => file);
    expect(usesConf).toEqual(['settings/store.ts']);
    const writesConfig = sources.filter(([file, text]) => file !== 'settings/store.ts' && /config\.json/.test(text) && /\b(writeFileAtomic|writeFileSync|appendFileSync|renameSync)\(/.test(text)).map(([file]) => file);
    expect(writesConfig).toEqual([]);
  });

  it('gives every figure a test file of its own (test/figures/NAME.test.ts for src/figures/NAME.ts)', () => {
    const tests = new Set(readdirSync(fileURLToPath(new URL('./figures/', import.meta.url))));
    const untested = readdirSync(join(src, 'figures')).filter((f) => f.endsWith('.ts') && !tests.has(f.replace(/\.ts$/, '.test.ts')));
    expect(untested).toEqual([]);
  });

  it('keeps views out of the commands: none draws a table or panel itself (output/ does)', () => {
    const drawing = [...graph.keys()].filter((file) => file.startsWith('commands/') && /\b(renderTable|renderPanel|styleFor)\(/.test(readFileSync(join(src, file), 'utf8')));
    expect(drawing).toEqual([]);
  });

  it('has no source file over ~400 lines, and no api/ module over ~250', () => {
    const long = [...graph.keys()].filter((file) => lines(file) > 400).map((file) => `${file}: ${lines(file)} lines`);
    expect(long).toEqual([]);
    const api = [...graph.keys()].filter((file) => file.startsWith('api/') && lines(file) > 260).map((file) => `${file}: ${lines(file)} lines`);
    expect(api).toEqual([]);
  });

  it('leaves process, chalk, undici and conf to the context: no command or figure uses them directly', () => {
    const direct = [...graph.keys()]
      .filter((file) => /^(commands|figures)\//.test(file))
      .filter((file) => /from '(chalk|undici|conf)'|\bprocess\.(env|exit|stdout|stderr|argv)\b/.test(readFileSync(join(src, file), 'utf8')));
    expect(direct).toEqual([]);
  });
});

describe('one definition per command', () => {
  // The registry is the table of commands: what runs across profiles is said there (`fleet`), and
  // nothing else holds a list of command names (a list kept beside it goes out of step with it).
  const registry = readFileSync(join(src, 'cli/registry.ts'), 'utf8');
  const names = [...registry.matchAll(/\{ name: '([^']+)'/g)].map((m) => m[1]!);

  it('reads the table of commands', () => {
    expect(names.length).toBeGreaterThan(30);
    expect(names).toContain('anomalies');
  });

  it('keeps no list of command names outside the registry (an array of three or more)', () => {
    // The check itself: it finds such a list, and passes over names used one by one.
    const found = (text: string) => [...text.matchAll(/\[\s*((?:'[^'\n]*'\s*,\s*){2,}'[^'\n]*'\s*,?)\s*\]/g)].length;
    expect(found("const FLEET = ['balance', 'status', 'usage'];")).toBe(1);
    expect(found("await Promise.all([ctx.command('status'), ctx.command('usage'), ctx.command('models')])")).toBe(0);
    const listed = [...graph.keys()]
      .filter((file) => file !== 'cli/registry.ts' && !file.startsWith('sandbox/'))
      .flatMap((file) =>
        [...readFileSync(join(src, file), 'utf8').matchAll(/\[\s*((?:'[^'\n]*'\s*,\s*){2,}'[^'\n]*'\s*,?)\s*\]/g)]
          .map((m) => [...m[1]!.matchAll(/'([a-z][a-z -]*)'/g)].map((w) => w[1]!))
          .filter((words) => words.length >= 3 && words.every((w) => names.includes(w)))
          .map((words) => `${file}: ${words.join(', ')}`),
      );
    expect(listed).toEqual([]);
  });

  it("says what a command is to the program in its definition, never by its name elsewhere: the fleet's rows, a gate's exit, a hook's exit are the registry's fields and the module's fleetRow", () => {
    // The check itself: a comparison with a command's name is found; a field that shares a name is not.
    const compared = (text: string) => [...text.matchAll(/(?:===|!==)\s*'([a-z][a-z ]*)'|\[\s*'([a-z][a-z ]*)'\s*\]/g)].map((m) => m[1] ?? m[2]!).filter((w) => names.includes(w));
    expect(compared("if (entry.name === 'check') x;")).toEqual(['check']);
    expect(compared("const balance = text(at(record, 'balance'));")).toEqual([]);
    // Where a command's facts were kept by its name: the program's top, the fleet and its view.
    const named = ['cli/program.ts', 'fleet.ts', 'across-profiles.ts', 'output/fleet.ts'].flatMap((file) => compared(readFileSync(join(src, file), 'utf8')).map((w) => `${file}: ${w}`));
    expect(named).toEqual([]);
    const view = readFileSync(join(src, 'output/fleet.ts'), 'utf8');
    expect(names.filter((n) => new RegExp(`^\\s+${n}: \\[`, 'm').test(view))).toEqual([]);
  });

  it('defines every command as its declared flags or configure (its words), parse and run(request, ctx) in its module, and no parse casts its flags (test/commands/requests.test.ts loads each and holds it to that)', () => {
    const modules = readdirSync(join(src, 'commands')).filter((f) => f.endsWith('.ts'));
    expect(modules.length).toBeGreaterThan(30);
    const lacking = modules.flatMap((file) => {
      const text = readFileSync(join(src, 'commands', file), 'utf8');
      const has = (part: string) => new RegExp(`^export (async )?(function|const) ${part}\\b|^  (async )?${part}[(:]`, 'm').test(text);
      return [...(has('flags') ? [] : ['configure']), 'parse', 'run'].filter((part) => !has(part) && !(part === 'configure' && /^export \{ \w+ as flags \}/m.test(text))).map((part) => `${file}: ${part}`);
    });
    expect(lacking).toEqual([]);
    // The flags arrive typed from their declaration (flags/declare.ts FlagValues): never cast.
    const cast = modules.filter((file) => /\bflags as (unknown\b|[A-Z{(])/.test(readFileSync(join(src, 'commands', file), 'utf8')));
    expect(cast).toEqual([]);
    // A run takes the request and the context only: its words and flags are in the request.
    const signature = (file: string) => /^export async function run\(([^)]*)\)/m.exec(readFileSync(join(src, 'commands', file), 'utf8'))?.[1]?.replace(/<[^<>]*>/g, '') ?? '';
    expect(signature('demo.ts')).toBe('_request: Record, ctx: Context');
    const wide = modules.filter((file) => signature(file).split(',').length > 2);
    expect(wide).toEqual([]);
  });

  it('names only commands of the registry in the MCP tools', () => {
    const tools = readFileSync(join(src, 'mcp/tools.ts'), 'utf8');
    const commands = [...tools.matchAll(/command: \['([^']+)'/g)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(5);
    expect(commands.filter((c) => !names.includes(c))).toEqual([]);
  });
});
