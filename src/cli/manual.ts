// The command reference as the docs generator asks it (src/cli/main.ts manual): every command's page
// and the global options, from the whole program. Here, at the program's top, because it reads
// the registry and the program; the pages themselves are src/manual/reference.ts's.
import { type CommandPage, commandPage, optionRow } from '../manual/reference.js';

/** Every command's page and the global options, from the whole program (the docs generator asks this once). */
export async function manualPages(): Promise<{ pages: CommandPage[]; globals: CommandPage['options'] }> {
  const [{ describedProgram }, { createTestIO }, { shippedText }] = await Promise.all([import('./program.js'), import('../io.js'), import('../external.js')]);
  const { program, entries: COMMANDS, byName } = await describedProgram(createTestIO({ width: 100 }));
  const pages = COMMANDS.flatMap((entry) => {
    const command = byName.get(entry.name);
    if (!command) return [];
    const schema = `schemas/${entry.name.replace(/ /g, '-')}.schema.json`;
    return [commandPage(command, entry, shippedText(schema) === undefined ? undefined : schema)];
  });
  return { pages, globals: program.options.filter((o) => !o.hidden).map(optionRow) };
}
