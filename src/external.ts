// Loads a dependency that stays outside the bundle (undici, conf, jq-wasm). The launcher
// (bin/load-bundle.cjs) compiles the bundle through node:vm to use a V8 code cache, and code
// compiled that way has no import() loader of its own, so the launcher hands one in.
// Node built-ins are taken with process.getBuiltinModule (synchronous, and cheaper than import()).
type Importer = (specifier: string) => Promise<unknown>;
type Launcher = { __tallyImport?: Importer; __tallyResolve?: (specifier: string) => string; __tallyRoot?: string };

export function importExternal<T>(specifier: string): Promise<T> {
  if (specifier.startsWith('node:')) return Promise.resolve(process.getBuiltinModule(specifier) as T);
  const launcher = globalThis as Launcher;
  return (launcher.__tallyImport ? launcher.__tallyImport(specifier) : import(specifier)) as Promise<T>;
}

/** The file a dependency outside the bundle loads from (for a worker thread to require it). */
export function resolveExternal(specifier: string): string {
  const launcher = globalThis as Launcher;
  if (launcher.__tallyResolve) return launcher.__tallyResolve(specifier);
  // Run from source (tests): resolved from this file, as Node would.
  return process.getBuiltinModule('node:module').createRequire(import.meta.url).resolve(specifier);
}

/** The folder of tally's package (where schemas/ is shipped beside bin/ and dist/). */
export function packageRoot(): string {
  const launcher = globalThis as Launcher;
  if (launcher.__tallyRoot) return launcher.__tallyRoot;
  // Run from source (tests): two folders up from this file.
  return new URL('..', new URL('.', import.meta.url)).pathname.replace(/\/$/, '');
}
