// The chat tools teams use and e-mail, as the built binary reaches them: each against a local
// replica of the tool's wire format written from its documentation (not from tally's code):
// Feishu checks its signature (key: timestamp + "\n" + secret, over an empty message; the
// timestamp in seconds, in the body), DingTalk its own (key: the secret, over timestamp + "\n" +
// secret; milliseconds, in the query), and both answer HTTP 200 with an error code when it does
// not match; WeCom refuses the 21st message of a minute (errcode 130101, HTTP 200); Discord takes
// 2,000 characters a message, Telegram 4,096 and answers ok:false; e-mail goes to a local SMTP sink.
import { createHmac } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { runTally, tempDir } from '../helpers.js';

interface Hit {
  path: string;
  body: Record<string, unknown>;
}
const hits: Hit[] = [];
let server: Server;
let base = '';
const feishuSecret = 'feishu-secret-9c2e5b8d1f';
const dingSecret = 'SECdingtalk0123456789abcdef';
let wecomCount = 0;
// tally runs on a fixed clock (never the wall clock): the replicas check its timestamps against it.
const NOW = Date.UTC(2026, 10, 20, 9, 30);
const now = NOW;

function answer(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void {
  const url = new URL(req.url ?? '/', base);
  hits.push({ path: url.pathname + url.search, body });
  const reply = (value: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  if (url.pathname === '/feishu') {
    // Feishu: the timestamp (seconds) within an hour of now, and its signature.
    const timestamp = String(body.timestamp);
    const expected = createHmac('sha256', `${timestamp}\n${feishuSecret}`).update(Buffer.alloc(0)).digest('base64');
    if (body.sign !== expected || Math.abs(Number(timestamp) - Math.floor(now / 1000)) > 3600) return reply({ code: 19021, msg: 'sign match fail or timestamp is not within one hour from current time' });
    return reply({ code: 0, msg: 'success', data: {} });
  }
  if (url.pathname === '/dingtalk') {
    const timestamp = url.searchParams.get('timestamp') ?? '';
    const expected = createHmac('sha256', dingSecret).update(`${timestamp}\n${dingSecret}`).digest('base64');
    if (url.searchParams.get('sign') !== expected || Math.abs(Number(timestamp) - now) > 3_600_000) return reply({ errcode: 310000, errmsg: 'sign not match' });
    return reply({ errcode: 0, errmsg: 'ok' });
  }
  if (url.pathname === '/wecom') return reply(++wecomCount > 20 ? { errcode: 130101, errmsg: 'api freq out of limit' } : { errcode: 0, errmsg: 'ok' });
  if (url.pathname.startsWith('/discord')) {
    if (String(body.content).length > 2000) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 50035, message: 'Invalid Form Body' }));
    return void res.writeHead(204).end();
  }
  if (url.pathname.startsWith('/bot')) {
    if (body.chat_id !== '42') return reply({ ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    return reply({ ok: String(body.text).length <= 4096, result: { message_id: 1 } });
  }
  res.writeHead(404).end();
}

const mails: { from: string; to: string[]; data: string }[] = [];
let smtp: SMTPServer;
let smtpPort = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => answer(req, res, JSON.parse(text || '{}') as Record<string, unknown>));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  smtp = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth: (auth, _session, callback) => (auth.username === 'alerts@example.com' && auth.password === 'mail-password-77' ? callback(null, { user: auth.username }) : callback(new Error('Invalid username or password'))),
    onData: (stream, session, callback) => {
      let data = '';
      stream.on('data', (d: Buffer) => (data += d.toString()));
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as { port: number }).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const state = tempDir();
afterAll(() => state.remove());
const env = () => ({ PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: 'https://gw.example.com', TALLY_API_KEY: 'sk-test-notify-kinds-000000' });
const add = (name: string, kind: string, input: string) => runTally(['notify', 'add', name, '--kind', kind], { env: env(), input, now: NOW });
const test = (name: string) => runTally(['notify', 'test', name], { env: env(), timeoutMs: 60_000, now: NOW });

describe('tally notify: the chat tools teams use, and e-mail', () => {
  it('signs for Feishu as Feishu checks it (seconds, in the body); a wrong secret is a failed delivery though the reply is HTTP 200', async () => {
    expect((await add('lark', 'feishu', `${base}/feishu\n${feishuSecret}\n`)).code).toBe(0);
    const ok = await test('lark');
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const sent = hits.at(-1)!.body;
    expect(sent).toMatchObject({ msg_type: 'text', content: { text: expect.stringContaining('a test message') } });
    expect(String(sent.timestamp)).toMatch(/^\d{10}$/);
    expect((await add('lark-wrong', 'feishu', `${base}/feishu\nnot-the-secret\n`)).code).toBe(0);
    const wrong = await test('lark-wrong');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/feishu "lark-wrong" did not take the message \(HTTP 200, code 19021: sign match fail/);
    expect(wrong.stderr + ok.stdout).not.toContain('not-the-secret');
  });

  it('signs for DingTalk as DingTalk checks it (milliseconds, in the query), and a wrong one fails the same way', async () => {
    expect((await add('ding', 'dingtalk', `${base}/dingtalk?access_token=abc\n${dingSecret}\n`)).code).toBe(0);
    expect((await test('ding')).code).toBe(0);
    const hit = hits.at(-1)!;
    expect(hit.path).toMatch(/^\/dingtalk\?access_token=abc&timestamp=\d{13}&sign=/);
    expect(hit.body).toMatchObject({ msgtype: 'text', text: { content: expect.stringContaining('a test message') } });
    expect((await add('ding-wrong', 'dingtalk', `${base}/dingtalk?access_token=abc\nSECwrong\n`)).code).toBe(0);
    const wrong = await test('ding-wrong');
    expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('dingtalk "ding-wrong" did not take the message (HTTP 200, errcode 310000: sign not match)')]);
  });

  it('keeps WeCom within 20 messages a minute: the 21st in the same minute is held back, never sent, and said', async () => {
    expect((await add('wecom', 'wecom', `${base}/wecom?key=k\n`)).code).toBe(0);
    for (let i = 0; i < 20; i++) expect((await test('wecom')).code, `message ${i + 1}`).toBe(0);
    const before = wecomCount;
    const held = await runTally(['--timeout', '2', 'notify', 'test', 'wecom'], { env: env(), now: NOW });
    expect(held.code).toBe(1);
    expect(held.stderr).toMatch(/wecom "wecom" takes 20 messages a minute and has had them: this one is held back/);
    expect(wecomCount).toBe(before);
  }, 120_000);

  it('reads a WeCom refusal in a 200 reply (its rate counted elsewhere too) as a failed delivery', async () => {
    wecomCount = 100;
    expect((await add('wecom2', 'wecom', `${base}/wecom?key=other\n`)).code).toBe(0);
    const refused = await test('wecom2');
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("errcode 130101: api freq out of limit (past WeCom's 20 messages a minute)")]);
  });

  it('keeps Discord and Telegram within their lengths, and reads Telegram\'s ok:false as a failure', async () => {
    expect((await add('disc', 'discord', `${base}/discord/webhook\n`)).code).toBe(0);
    const disc = await test('disc');
    expect([disc.code, disc.stderr]).toEqual([0, '']);
    expect(hits.at(-1)!.body).toMatchObject({ content: expect.stringContaining('a test message'), allowed_mentions: { parse: [] } });
    expect((await add('tg', 'telegram', `${base}/botTOKEN/sendMessage?chat_id=42\n`)).code).toBe(0);
    expect((await test('tg')).code).toBe(0);
    expect(hits.at(-1)!.body).toMatchObject({ chat_id: '42', text: expect.stringContaining('a test message') });
    expect((await add('tg-wrong', 'telegram', `${base}/botTOKEN/sendMessage?chat_id=7\n`)).code).toBe(0);
    const wrong = await test('tg-wrong');
    expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('400: Bad Request: chat not found')]);
    expect((await add('tg-none', 'telegram', `${base}/botTOKEN/sendMessage\n`)).code).toBe(2);
  });

  it('sends e-mail through SMTP with the password from stdin, never shown', async () => {
    expect((await add('mail', 'email', `smtp://alerts%40example.com@127.0.0.1:${smtpPort}?to=ops@example.com,lead@example.com\nmail-password-77\n`)).code).toBe(0);
    const list = await runTally(['notify', 'list', '--json'], { env: env(), now: NOW });
    expect(list.stdout).not.toContain('mail-password-77');
    const sent = await test('mail');
    expect([sent.code, sent.stderr]).toEqual([0, '']);
    expect(mails.at(-1)).toMatchObject({ from: 'alerts@example.com', to: ['ops@example.com', 'lead@example.com'] });
    expect(mails.at(-1)!.data).toMatch(/^Subject: tally test: test \(default\)/m);
    expect((await add('mail-wrong', 'email', `smtp://alerts%40example.com@127.0.0.1:${smtpPort}?to=ops@example.com\nwrong\n`)).code).toBe(0);
    const wrong = await test('mail-wrong');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/email "mail-wrong": the mail server answered 535/);
    expect((await add('mail-bad', 'email', 'smtp://127.0.0.1:25\n')).code).toBe(2);
  });
});

describe('the signing rules beside their documented examples', () => {
  it('differ: Feishu keys by timestamp and secret over nothing, DingTalk keys by the secret over timestamp and secret', async () => {
    const { feishuSign, dingtalkSign } = await import('../../src/notify/chat.js');
    expect(feishuSign('s', 1_700_000_000)).toBe(createHmac('sha256', '1700000000\ns').update('').digest('base64'));
    expect(dingtalkSign('s', 1_700_000_000_000)).toBe(createHmac('sha256', 's').update('1700000000000\ns').digest('base64'));
    expect(feishuSign('s', 1)).not.toBe(dingtalkSign('s', 1));
  });
});
