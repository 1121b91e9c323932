// The build's decimal.js makes its two 1,025-digit constants (ln 10, pi) on first use instead of
// when it loads (scripts/bundle-options.mjs lazyDecimalConstants): every figure that needs them
// is the same, digit for digit, as the package's own module gives, at every precision and
// rounding, and past the constants' precision it fails as the module does.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';
import { build } from 'esbuild';
import decimalImport from 'decimal.js';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript
import { lazyConstants, lazyDecimalConstants } from '../../scripts/bundle-options.mjs';

const source = createRequire(import.meta.url).resolve('decimal.js/decimal.mjs');
// The package's own module, as src/domain/money.ts reads its default import.
const Decimal = ('clone' in decimalImport ? decimalImport : decimalImport.default) as typeof decimalImport.default;
type Decimal = InstanceType<typeof Decimal>;

async function builtDecimal(): Promise<typeof Decimal> {
  const { outputFiles } = await build({ entryPoints: [source], bundle: true, format: 'cjs', platform: 'node', write: false, plugins: [lazyDecimalConstants] });
  const module = { exports: {} as { default: typeof Decimal } };
  (runInThisContext(`(function (module, exports) {${outputFiles[0]!.text}\n})`) as (m: unknown, e: unknown) => void)(module, module.exports);
  return module.exports.default;
}

describe("the build's decimal.js", () => {
  it('answers every logarithm and angle as the package does, at any precision and rounding', async () => {
    const Built = await builtDecimal();
    for (const precision of [1, 7, 20, 64, 300]) {
      for (const rounding of [Decimal.ROUND_HALF_UP, Decimal.ROUND_DOWN, Decimal.ROUND_HALF_EVEN] as const) {
        const Theirs = Decimal.clone({ precision, rounding });
        const Ours = Built.clone({ precision, rounding });
        // The value, or the error the package throws (a precision past the constants'): the same from both.
        const outcome = (f: () => Decimal) => {
          try {
            return f().toString();
          } catch (error) {
            return `throws ${(error as Error).message}`;
          }
        };
        for (const x of ['2', '0.5', '10', '123.456', '1e-30', '98765432109876543210']) {
          expect(outcome(() => Ours.ln(x)), `ln ${x} at ${precision}`).toBe(outcome(() => Theirs.ln(x)));
          expect(outcome(() => Ours.log10(x)), `log10 ${x} at ${precision}`).toBe(outcome(() => Theirs.log10(x)));
          expect(outcome(() => Ours.log(x, 3)), `log3 ${x} at ${precision}`).toBe(outcome(() => Theirs.log(x, 3)));
        }
        for (const x of ['-1', '0.25', '1']) expect(outcome(() => Ours.acos(x)), `acos ${x} at ${precision}`).toBe(outcome(() => Theirs.acos(x)));
        for (const x of ['3', '100', '-7.5']) expect(outcome(() => Ours.sin(x)), `sin ${x} at ${precision}`).toBe(outcome(() => Theirs.sin(x)));
      }
    }
  });

  it("fails past the constants' precision as the package does, and works after", async () => {
    const Built = await builtDecimal();
    expect(() => Decimal.clone({ precision: 1100 }).ln('2')).toThrow(/Precision limit exceeded/);
    expect(() => Built.clone({ precision: 1100 }).ln('2')).toThrow(/Precision limit exceeded/);
    expect(() => Built.clone({ precision: 1100 }).acos('-1')).toThrow(/Precision limit exceeded/);
    // Near the constants' own precision, where every digit of them counts.
    expect(Built.clone({ precision: 1000 }).ln('7').toString()).toBe(Decimal.clone({ precision: 1000 }).ln('7').toString());
    expect(Built.ln('2').toString()).toBe(Decimal.ln('2').toString());
    expect(Built.acos('-1').toString()).toBe(Decimal.acos('-1').toString());
  });

  it('makes no Decimal of the constants when it loads, and refuses a decimal.mjs it does not fit', () => {
    const text = readFileSync(source, 'utf8');
    const changed = lazyConstants(text);
    expect(changed).not.toMatch(/^(LN10|PI) = new Decimal\((LN10|PI)\);$/m);
    expect(changed).toContain('new Ctor(LN10 = constantOf(LN10))');
    expect(changed).toContain('new Ctor(PI = constantOf(PI))');
    expect(() => lazyConstants(text.replace('PI = new Decimal(PI);', 'PI = new Decimal(PI, 1);'))).toThrow(/is not there once/);
    expect(() => lazyConstants(text.replace('return finalise(new Ctor(PI), sd, rm, true);', 'return finalise(new Ctor(PI), sd, rm);'))).toThrow(/is not there once/);
  });
});
