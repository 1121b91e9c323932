// What a broken or hostile gateway sends is reported, never shown as data, and never drives the terminal.
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const json = { headers: { 'content-type': 'application/json' } };

function answering(path: string, body: string, status = 200) {
  const gw = mockGateway();
  gw.pool.intercept({ path }).reply(status, body, json);
  return gw;
}

const good = (balance: string) => `{"currency": "CNY", "balance": ${balance}, "lifetime_spend": "1.00", "plan": {"has_active_plan": false}, "api_key": null}`;

describe('adversarial: malformed responses', () => {
  it.each([
    ['HTML', '<html><head><title>502</title></head><body>upstream down</body></html>', 'not JSON (<html><head><title>502</title></head><body>upstream down</body></html>)'],
    ['truncated JSON', '{"currency": "CNY", "balance": "12', 'not JSON ({"currency": "CNY", "balance": "12)'],
    ['an array', '[{"currency": "CNY"}]', 'balance response is not a JSON object'],
    ['a money number', good('12.5'), 'balance is not a decimal string (got 12.5)'],
    ['a broken decimal', good('"12.3.4"'), 'balance is not a decimal string (got "12.3.4")'],
    ['a huge exponent', good('1e400'), 'balance is not a decimal string (got 1e400)'],
    ['NaN text', good('"NaN"'), 'balance is not a decimal string (got "NaN")'],
    ['a duplicate key', '{"currency": "CNY", "balance": "1.00", "balance": "999.00", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": null}', "invalid JSON (Duplicate key 'balance')"],
  ])('reports %s as an unexpected response (exit 1)', async (_name, body, detail) => {
    const result = await runCommand(['balance', '--json'], { transport: answering('/v1/open/balance', body).transport, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const error = JSON.parse(result.stderr).error;
    expect(error.kind).toBe('service');
    expect(error.message.startsWith(`unexpected response from gw.test: ${detail}`)).toBe(true);
  });

  it('keeps a long body to a short excerpt and masks a key inside it', async () => {
    const body = `<html>${'x'.repeat(5000)} ${KEY}</html>`;
    const result = await runCommand(['balance'], { transport: answering('/v1/open/balance', body).transport, env });
    expect(result.stderr.length).toBeLessThan(200);
    expect(result.stderr).not.toContain(KEY);
  });
});

describe('adversarial: terminal escapes from the service', () => {
  const evil = 'gpt\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m';
  it('escapes control sequences in model names (table) and keeps them intact in JSON', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/models' }).reply(200, `{"object": "list", "data": [{"id": "${evil}", "context_window": 1, "max_output_tokens": 1, "reasoning_efforts": ["none"]}]}`, json).times(2);
    const table = await runCommand(['models'], { transport: gw.transport, env });
    expect(table.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(table.stdout).toContain('gpt\\e[2J\\e]0;owned\\u0007\\u009b31m');
    const asJson = await runCommand(['models', '--json'], { transport: gw.transport, env });
    expect(JSON.parse(asJson.stdout)[0].id).toBe('gpt\u001b[2J\u001b]0;owned\u0007\u009b31m');
  });

  it('escapes control sequences in error messages and log fields', async () => {
    const error = await runCommand(['balance'], { transport: answering('/v1/open/balance', `{"error": {"message": "${evil}"}}`, 401).transport, env });
    expect(error.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(error.stderr).toContain('gpt\\e[2J');
    const logs = mockGateway();
    logs.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(200, `{"data": [{"id": "1", "note": "${evil}"}]}`, json);
    const table = await runCommand(['logs'], { transport: logs.transport, env });
    expect(table.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
  });

  it('escapes a balance key name in the panel', async () => {
    const body = `{"currency": "CNY", "balance": "1", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": {"name": "${evil}", "prefix": "p", "daily_cost_limit": "1", "daily_cost_used": "0"}}`;
    const result = await runCommand(['balance'], { transport: answering('/v1/open/balance', body).transport, env });
    expect(result.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
  });
});
