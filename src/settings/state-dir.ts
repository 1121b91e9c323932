// The state folder: everything tally writes lives below it.

/** TALLY_CONFIG_DIR, else the per-OS config folder (the one conf would choose). */
export async function stateDirFor(env: NodeJS.ProcessEnv): Promise<string> {
  const chosen = env.TALLY_CONFIG_DIR;
  if (chosen) return chosen;
  // Bundled (2 kB): importing it from node_modules would start Node's ES module loader on every run.
  const { default: envPaths } = await import('env-paths');
  return envPaths('tally', { suffix: '' }).config;
}
