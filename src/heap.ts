// How V8's young generation grows in a run that keeps a large document to its end.

/**
 * Called before a document of megabytes is parsed into a tree the run keeps until it ends (a
 * price catalog, whose records a table's rows, the cached listing and --json all read): the
 * young generation stays at its starting size for the rest of the run. V8 doubles it as a run
 * allocates, and every scavenge copies what is alive in it; a tree that stays alive is copied
 * between its halves again and again before it is promoted, more so the larger it has grown.
 * Kept small, the tree is promoted soon and scavenges stay short. Measured on a 5,000-model
 * catalog of 3 MB (`pricing --refresh` against a changed catalog): a tenth of the run's wall
 * time, the same peak memory; on 30,000 models (18 MB) neither better nor worse. Only this
 * growth factor is read while the program runs (the semi-spaces' sizes are fixed at start).
 */
export function keepYoungGenerationSmall(): void {
  // A built-in taken when needed (src/external.ts): the runs that parse no such document never load it.
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}
