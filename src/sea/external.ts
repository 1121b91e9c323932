// src/external.ts as the single executable has it (scripts/build-binary.mjs puts this file in its
// place): every dependency is bundled into the binary, and the files tally ships (schemas/, the
// saved completion spec, jq's CommonJS build) are its assets. Nothing is read from beside it.
import { InstallError } from '../errors.js';

type SeaLauncher = { __tallyLoadAsset?: (name: string) => Record<string, unknown> };

/** The package a module specifier names (`@modelcontextprotocol/server/stdio`: `@modelcontextprotocol/server`). */
function packageOf(specifier: string): string {
  return specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/**
 * A dependency, from the binary's assets: each package is bundled on its own (deps/PACKAGE.cjs,
 * exporting its modules by specifier), so the program's own bundle stays as small as the
 * package's, and a command pays for a dependency only when it needs it.
 */
export function importExternal<T>(specifier: string): Promise<T> {
  if (specifier.startsWith('node:')) return Promise.resolve(process.getBuiltinModule(specifier) as T);
  return new Promise<T>((resolve) => {
    const load = (globalThis as SeaLauncher).__tallyLoadAsset;
    const modules = load?.(`deps/${packageOf(specifier)}.cjs`);
    if (!modules || !Object.hasOwn(modules, specifier)) throw new InstallError(`${specifier} is not built into this binary`);
    resolve(modules[specifier] as T);
  });
}

/** Where a worker thread loads a CommonJS dependency from: its file, or its source (an asset of this binary). */
export type WorkerModule = { file: string } | { asset: string };

/** jq's CommonJS build with its WebAssembly inline, an asset (scripts/build-binary.mjs names it). */
export function workerModule(specifier: string): WorkerModule {
  return { asset: `node_modules/${specifier}` };
}

/** A file tally ships, by its path in the package (`schemas/usage.schema.json`), as text; undefined when it is not there. */
export function shippedText(path: string): string | undefined {
  try {
    return (process.getBuiltinModule('node:sea') as typeof import('node:sea')).getAsset(path, 'utf8');
  } catch {
    return undefined;
  }
}
