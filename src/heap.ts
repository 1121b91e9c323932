// How V8's young generation grows while a run parses a large document and works through it.

/** V8's own growth factor of the young generation, on every Node line tally supports (20, 22, 24). */
const V8_DEFAULT_GROWTH = 2;

/**
 * Called before a document of megabytes is parsed into a tree the run keeps while it works
 * through it (a price catalog: a table's rows, the cached listing and --json all read its
 * records); the function it returns ends it. Until then the young generation stays at the size
 * it has. V8 doubles it as a run allocates, and every scavenge copies what is alive in it: a tree
 * that stays alive is copied between its halves again and again before it is promoted, more so
 * the larger the young generation has grown. Kept small, the tree is promoted soon and scavenges
 * stay short. Measured on a 5,000-model catalog of 3 MB (`pricing --refresh` against a changed
 * catalog): a twentieth of the run's wall time less, the same peak memory; on 30,000 models
 * (18 MB) neither better nor worse. Ended afterwards, so a long-lived process that loads a
 * catalog (tally proxy, tally mcp) grows its young generation as usual for its other work. Only
 * this factor is read while a program runs (the semi-spaces' limits are fixed at its start).
 * While it is changed, V8's flags differ from those Node's own code caches and tally's were made
 * under: a built-in module loaded then compiles from its source (node:http took twice as long),
 * and a code cache made then is refused by the next run (it was, by every `logs --ndjson` run).
 * So it is called once the modules a request needs are loaded, and ended before the run ends.
 */
export function keepYoungGenerationSmall(): () => void {
  // A built-in taken when needed (src/external.ts): the runs that parse no such document never load it.
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
  return () => setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
}
