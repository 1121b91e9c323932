// Which bundle runs a command line, for the package's launcher (bin/load-bundle.cjs) and the single
// executable's (src/sea/entry.cjs) alike: the command word (the line's first word that is no
// option, past the values of the global options that take one, as the parser finds it), and
// whether the command has a bundle of its own. A help line runs in the whole program (it lists
// every command), as does one that redraws a terminal (--watch) or runs over profiles; where the
// command bundles leave the in-process sandbox out (the package's), so does a line with --demo.
'use strict';

/** The command word of a command line (its first word that is no option): it names the bundle and its code cache. */
function commandWord(argv, takesValue) {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue.includes(word)) i++;
      continue;
    }
    return /^[a-z][a-z-]{0,31}$/.test(word) ? word : 'other';
  }
  return 'none';
}

/** The routes the build wrote (dist/commands.json's text), or none when they are not what it writes. */
function readRoutes(text) {
  try {
    const launch = JSON.parse(text ?? 'null');
    const words = (list, pattern) => (Array.isArray(list) && list.every((item) => typeof item === 'string' && pattern.test(item)) ? list : undefined);
    const valueFlags = words(launch?.valueFlags, /^-{1,2}[a-z][a-z-]*$/);
    const commands = words(launch?.commands, /^[a-z][a-z-]{0,31}$/);
    return valueFlags && commands ? { valueFlags, commands } : { valueFlags: [], commands: [] };
  } catch {
    return { valueFlags: [], commands: [] };
  }
}

/**
 * The options whose lines the command bundles leave to the whole program (scripts/bundle-options.mjs
 * leanCommandBundle): a terminal that redraws (--watch) and the loop over profiles.
 */
const WHOLE_PROGRAM = new Set(['--watch', '--all-profiles', '--profiles']);

/** The command word, and its own bundle's name (`command-WORD.cjs`) where it has one, else undefined (the whole program). */
function route(argv, routes, { demoInBundles }) {
  const word = commandWord(argv, routes.valueFlags);
  const whole = argv.some((a) => a === '--help' || a === '-h' || (!demoInBundles && a === '--demo') || WHOLE_PROGRAM.has(a.split('=')[0]));
  return { word, own: routes.commands.includes(word) && !whole ? `command-${word}.cjs` : undefined };
}

module.exports = { commandWord, readRoutes, route };
