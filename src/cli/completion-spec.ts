// What shell completion knows of tally, taken from the command registry by @bomb.sh/tab's
// commander adapter and written down as data: the build saves it beside the bundle
// (dist/completion.json), so that answering a Tab loads neither commander nor any command.
import { createTestIO } from '../io.js';
import type { CompletionSpec, SpecOption } from '../completion/complete.js';

export type { CompletionSpec, SpecOption };

type TabHandler = (complete: (value: string, description: string) => void, options: unknown) => void;
type TabOption = { description?: string; handler?: TabHandler; isBoolean?: boolean; alias?: string };
type TabArgument = { handler?: TabHandler; variadic: boolean };
type TabCommand = { description?: string; options: Map<string, TabOption>; arguments: Map<string, TabArgument> };
type TabRoot = TabCommand & { commands: Map<string, TabCommand> };

/** The spec, from the whole program (every command module loads: the build does this once). */
export async function buildSpec(): Promise<CompletionSpec> {
  const [{ fullProgram }, adapter, tab] = await Promise.all([import('./program.js'), import('@bomb.sh/tab/commander'), import('@bomb.sh/tab')]);
  adapter.default((await fullProgram(createTestIO())) as unknown as Parameters<typeof adapter.default>[0]);
  const root = tab.default as unknown as TabRoot;
  const values = (handler: TabHandler | undefined) => {
    const found: string[] = [];
    handler?.((value) => found.push(value), undefined);
    return found;
  };
  const options = (command: TabCommand): SpecOption[] =>
    [...command.options].map(([name, o]) => ({ name, description: o.description ?? '', takesValue: o.isBoolean === false, choices: values(o.handler), ...(o.alias ? { alias: o.alias } : {}) }));
  return {
    options: options(root),
    commands: [...root.commands]
      // The adapter's own entry points: tally answers `complete --` before the CLI, and its command is `completion`.
      .filter(([name]) => name !== '' && name !== 'complete')
      .map(([name, command]) => ({
        name,
        description: command.description ?? '',
        options: options(command),
        arguments: [...command.arguments].map(([argument, a]) => ({ name: argument, choices: values(a.handler), variadic: a.variadic })),
      })),
  };
}
