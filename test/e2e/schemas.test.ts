// A JSON contract scripts can pin: every command's --json validates against its schema (a real
// validator, ajv, draft 2020-12) for every way the sandbox names its fields and with the billing
// wrapper; and no schema loses or renames a property of the version kept in the repository.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const NOW = Date.UTC(2026, 10, 20, 9, 30);
const schemaFiles = readdirSync(`${root}/schemas`).filter((f) => f.endsWith('.schema.json'));
const load = (dir: string, file: string) => JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Record<string, unknown>;

function validator() {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
  for (const file of schemaFiles) ajv.addSchema(load(`${root}/schemas`, file), file);
  return (file: string, document: unknown) => {
    const validate = ajv.getSchema(file)!;
    const ok = validate(document);
    return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

const CASES: [string, string[]][] = [
  ['usage.schema.json', ['usage', '--json']],
  ['usage.schema.json', ['usage', '--bucket', 'month', '--json']],
  ['usage.schema.json', ['usage', '--bucket', 'hour', '--since', '36h', '--json']],
  ['usage-models.schema.json', ['usage', '--by', 'model', '--bucket', 'week', '--json']],
  ['records.schema.json', ['usage', '--by', 'model', '--json']],
  ['records.schema.json', ['logs', '--since', '2d', '--json']],
  ['records.schema.json', ['logs', '--since', '2d', '--all', '--param', 'limit=20', '--json']],
  ['usage-compare.schema.json', ['usage', '--compare', 'previous', '--json']],
  ['usage-compare.schema.json', ['usage', '--compare', 'previous', '--by', 'model', '--since', '30d', '--json']],
  ['anomalies.schema.json', ['anomalies', '--json']],
  ['anomalies.schema.json', ['anomalies', '--bucket', 'hour', '--since', '3d', '--json']],
  ['whatif.schema.json', ['whatif', '--swap', 'claude-sonnet-4.5=deepseek-chat', '--swap', 'gpt-5-mini=gpt-5-nano', '--json']],
  ['check.schema.json', ['check', '--warn-anomalies', '--warn-growth', '5', '--max-price-impact', '100', '--json']],
  ['report.schema.json', ['report', '--json']],
  ['report.schema.json', ['report', '--since', '2026-11-10', '--until', '2026-11-20', '--json']],
  ['pricing.schema.json', ['pricing', '--json']],
  ['pricing-diff.schema.json', ['pricing', '--diff', '--json']],
  ['billing.schema.json', ['billing', '--json']],
  ['forecast.schema.json', ['forecast', '--json']],
  ['audit.schema.json', ['audit', '--json']],
  ['audit.schema.json', ['audit', '--since', '3d', '--tolerance', '2%', '--json']],
  ['forecast-backtest.schema.json', ['forecast', '--backtest', '--json']],
  ['forecast-backtest.schema.json', ['forecast', '--backtest', '--weeks', '3', '--days', '14', '--json']],
  ['status.schema.json', ['status', '--json']],
  ['check.schema.json', ['check', '--min-balance', '1', '--max-daily-used', '80%', '--max-spend', '1', '--require-model', 'gpt-5', '--budget', 'monthly', '--json']],
  ['doctor.schema.json', ['doctor', '--json']],
  ['budget.schema.json', ['budget', '--json']],
  ['mark.schema.json', ['mark', '--json']],
  ['config.schema.json', ['config', 'list', '--json']],
];

for (const [naming, options] of [['compact', {}], ['detailed', { naming: 'detailed' as const }], ['iso', { naming: 'iso' as const, compatWrap: 'none' as const }]] as const) {
  describe(`every --json against its schema, sandbox naming ${naming}${'compatWrap' in options ? ' with the billing wrapper' : ''}`, () => {
    let sandbox: Sandbox;
    const state = tempDir();
    let env: NodeJS.ProcessEnv;
    const check = validator();
    beforeAll(async () => {
      // Every document of every command against one gateway: more than a minute of the spec's 120 requests (an audit reads every day and page).
      sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 1000, ...options });
      env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' };
      await runTally(['budget', 'set', 'monthly', '--amount', '500', '--period', 'month'], { env, now: NOW });
    });
    afterAll(async () => {
      await sandbox.close();
      state.remove();
    });
    it.each(CASES)('%s: tally %j', async (schema, args) => {
      const result = await runTally(args, { env, now: NOW });
      expect([0, 5]).toContain(result.code);
      expect(check(schema, JSON.parse(result.stdout))).toEqual([]);
    });
  });
}

describe('tally schema', () => {
  it('prints each schema as shipped, and lists them', async () => {
    for (const [name, file] of [['usage', 'usage'], ['logs', 'records'], ['check', 'check']] as const) {
      const result = await runTally(['schema', name]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(load(`${root}/schemas`, `${file}.schema.json`));
    }
    expect((await runTally(['schema', 'nope'])).code).toBe(2);
  });

  it('catches a document that breaks its schema (the validator is not a formality)', () => {
    const check = validator();
    expect(check('usage.schema.json', { bucket: 'year', start: 'x' })).not.toEqual([]);
    expect(check('check.schema.json', { ok: true, checks: [{ name: 'x', ok: true, level: 'pass', actual: 5, limit: '1', unit: 'CNY' }] })).toEqual(['/checks/0/actual must be string', '/checks/0/actual must be null', '/checks/0/actual must match a schema in anyOf']);
  });
});

/** Every property path a schema names (properties, items, $defs), to compare versions. */
function propertyPaths(schema: unknown, at = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const paths: string[] = [];
  for (const [name, sub] of Object.entries((node.properties as Record<string, unknown>) ?? {})) paths.push(`${at}/${name}`, ...propertyPaths(sub, `${at}/${name}`));
  if (node.items) paths.push(...propertyPaths(node.items, `${at}[]`));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) for (const sub of (node[key] as unknown[]) ?? []) paths.push(...propertyPaths(sub, at));
  return paths;
}

describe('the schemas only ever gain properties', () => {
  const previous = `${root}/test/fixtures/schemas-v1`;
  it('reads the property paths it compares', () => {
    expect(propertyPaths(load(`${root}/schemas`, 'check.schema.json'))).toEqual(expect.arrayContaining(['/ok', '/checks', '/checks[]/actual', '/checks[]/basis']));
  });

  it.each(readdirSync(previous))('%s keeps every property of the version kept in the repository', (file) => {
    const now = new Set(propertyPaths(load(`${root}/schemas`, file)));
    const missing = propertyPaths(load(previous, file)).filter((path) => !now.has(path));
    expect(missing).toEqual([]);
  });
});
