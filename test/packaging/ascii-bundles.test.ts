// Every bundle a launcher compiles is ASCII only (scripts/bundle-options.mjs wrapBundle): the
// launchers read them as Latin-1 (bin/load-bundle.cjs, src/sea/entry.cjs), which would misread a
// character of UTF-8, so the build refuses one instead of shipping it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript
import { asciiOnly, wrapBundle } from '../../scripts/bundle-options.mjs';
import { tempDir } from '../helpers.js';

describe("the build's bundles", () => {
  it('are wrapped when every byte is ASCII', () => {
    const file = join(tempDir().path, 'bundle.cjs');
    writeFileSync(file, 'module.exports = "yuan \\u00a5";\n');
    wrapBundle(file);
    const text = readFileSync(file, 'latin1');
    expect(text.startsWith('(function (exports, require, module, __filename, __dirname) {')).toBe(true);
    expect(text).toContain('module.exports = "yuan \\u00a5";');
  });

  it('refuse a character outside ASCII, naming where it is, and leave the file as it was', () => {
    const file = join(tempDir().path, 'bundle.cjs');
    const written = 'const money = /[\u00a5$]/;\nmodule.exports = money;\n';
    writeFileSync(file, written);
    expect(() => wrapBundle(file)).toThrow(/bundle\.cjs has a character outside ASCII near "const money = \//);
    expect(readFileSync(file, 'utf8')).toBe(written);
    expect(() => asciiOnly(file)).toThrow(/outside ASCII/);
  });
});
