// Loads a dependency that stays outside the bundle (undici, conf, jq-wasm). The launcher
// (bin/load-bundle.cjs) compiles the bundle through node:vm to use a V8 code cache, and code
// compiled that way has no import() loader of its own, so the launcher hands one in.
// Node built-ins are required synchronously when the launcher offers require (cheaper than import()).
type Importer = (specifier: string) => Promise<unknown>;
type Launcher = { __tallyImport?: Importer; __tallyRequire?: (specifier: string) => unknown };

export function importExternal<T>(specifier: string): Promise<T> {
  const launcher = globalThis as Launcher;
  if (specifier.startsWith('node:') && launcher.__tallyRequire) return Promise.resolve(launcher.__tallyRequire(specifier) as T);
  return (launcher.__tallyImport ? launcher.__tallyImport(specifier) : import(specifier)) as Promise<T>;
}
