// What the build defines (scripts/build.mjs).
declare global {
  // Replaced by the build with the package version.
  const __TALLY_VERSION__: string;
}

export {};
