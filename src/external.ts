// Loads a dependency that stays outside the bundle (undici, conf, jq-wasm), and the files shipped
// beside it (schemas/, the saved completion spec). The launcher (bin/load-bundle.cjs) compiles the
// bundle through node:vm to use a V8 code cache, and code compiled that way has no import() loader
// of its own, so the launcher hands one in. The single executable is built with src/sea/external.ts
// in this file's place: everything inside, nothing loaded from beside the binary.
// Node built-ins are taken with process.getBuiltinModule (synchronous, and cheaper than import()).
import { readStateFile } from './settings/read-file.js';

type Importer = (specifier: string) => Promise<unknown>;
type Launcher = { __tallyImport?: Importer; __tallyResolve?: (specifier: string) => string; __tallyRoot?: string };

export function importExternal<T>(specifier: string): Promise<T> {
  if (specifier.startsWith('node:')) return Promise.resolve(process.getBuiltinModule(specifier) as T);
  const launcher = globalThis as Launcher;
  return (launcher.__tallyImport ? launcher.__tallyImport(specifier) : import(specifier)) as Promise<T>;
}

/** Where a worker thread loads a CommonJS dependency from: its file (here), or its source (the single executable). */
export type WorkerModule = { file: string } | { asset: string };

/** The module a worker thread requires for a dependency outside the bundle (jq). */
export function workerModule(specifier: string): WorkerModule {
  const launcher = globalThis as Launcher;
  if (launcher.__tallyResolve) return { file: launcher.__tallyResolve(specifier) };
  // Run from source (tests): resolved from this file, as Node would.
  return { file: process.getBuiltinModule('node:module').createRequire(import.meta.url).resolve(specifier) };
}

/** The folder of tally's package (where schemas/ is shipped beside bin/ and dist/). */
function packageRoot(): string {
  const launcher = globalThis as Launcher;
  if (launcher.__tallyRoot) return launcher.__tallyRoot;
  // Run from source (tests): two folders up from this file.
  return new URL('..', new URL('.', import.meta.url)).pathname.replace(/\/$/, '');
}

/** A file tally ships, by its path in the package (`schemas/usage.schema.json`), as text; undefined when it is not there, or not a file the build wrote (a FIFO never holds a run). */
export function shippedText(path: string): string | undefined {
  try {
    return readStateFile(`${packageRoot()}/${path}`, 16 * 1024 * 1024).toString('utf8');
  } catch {
    return undefined;
  }
}
