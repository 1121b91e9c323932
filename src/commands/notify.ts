// tally notify: where alerts go. Each destination's URL is a secret (a Slack or ntfy URL lets
// anyone post): it is read from standard input, stored per profile in config.json (0600), shown
// masked, kept out of --debug and every message.
//   tally notify add NAME --kind webhook|slack|ntfy|feishu|dingtalk|wecom|discord|telegram|email  < url.txt
//   (Feishu, DingTalk: the bot's signing secret on the second line; email: the password there)
//   tally notify list | tally notify rm NAME | tally notify test NAME
import { Argument, type Command } from 'commander';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { checkName } from '../domain/budget.js';
import { cleanSecretInput } from '../domain/secrets.js';
import { isLoopback } from '../domain/loopback.js';
import { emit } from '../output/emit.js';
import { KINDS_WITH_SECRET, NOTIFY_KINDS, type NotifyKind } from '../domain/notify-kinds.js';
import { deliver, maskDestination } from '../notify/send.js';
import { notifyProblem } from '../settings/profile-rules.js';
import { destinationsNamed, storedDestinations } from '../notify/destinations.js';

export function configure(command: Command): void {
  const action = new Argument('<action>', 'add NAME, list, rm NAME or test NAME');
  // Offered by completion; checked by run(), which says what the actions are.
  action.argChoices = ['add', 'list', 'rm', 'test'];
  command
    .addArgument(action)
    .argument('[name]', 'the destination');
}

export const flags = declareFlags({
  kind: { kind: 'value', value: 'kind', help: "with add: webhook (JSON), slack, ntfy, feishu, dingtalk, wecom, discord, telegram (bots' webhooks) or email (smtps://USER@HOST?from=…&to=…); stdin: the URL, then the signing secret or password on a second line", choices: NOTIFY_KINDS },
});

/** What `tally notify` was asked: add a destination of a kind, list them, remove or test one. */
export type NotifyRequest = { action: 'add'; name: string; kind: NotifyKind } | { action: 'list' } | { action: 'rm' | 'test'; name: string };

export function parse(given: FlagValues<typeof flags>, line: CommandLine): NotifyRequest {
  const { kind } = given;
  const [action, name, ...extra] = line.args;
  if (extra.length) throw new UsageError(`\`tally notify ${action}\` takes one NAME`);
  if (kind !== undefined && action !== 'add') throw new UsageError('--kind goes with `tally notify add NAME`');
  switch (action) {
    case 'add': {
      const checked = destinationName(name);
      if (!kind) throw new UsageError(`\`tally notify add NAME\` needs --kind ${NOTIFY_KINDS.join(', ')}`);
      return { action, name: checked, kind };
    }
    case 'list':
      if (name !== undefined) throw new UsageError('`tally notify list` takes no NAME');
      return { action };
    case 'rm':
    case 'test':
      return { action, name: destinationName(name) };
    default: throw new UsageError(`\`tally notify ${action ?? ''}\`: the actions are add NAME, list, rm NAME and test NAME`);
  }
}

export async function run(request: NotifyRequest, ctx: Context): Promise<void> {
  if (ctx.options.demo && request.action !== 'list') throw new UsageError('--demo never touches stored settings');
  switch (request.action) {
    case 'add': return add(ctx, request.name, request.kind);
    case 'list': return list(ctx);
    case 'rm': return remove(ctx, request.name);
    default: return test(ctx, request.name);
  }
}

function destinationName(name: string | undefined): string {
  if (name === undefined) throw new UsageError('a destination NAME is needed (e.g. team)');
  return checkName('destination', name);
}

async function add(ctx: Context, name: string, kind: NotifyKind): Promise<void> {
  // It often holds a secret: asked without echo on a terminal (as login asks for a key), else read
  // from stdin: the URL on the first line, a bot's signing secret or a mail password on the second.
  const withSecret = KINDS_WITH_SECRET.includes(kind);
  const [urlLine, secretLine] = ctx.io.stdinIsTTY
    ? [await ctx.io.promptHidden('Destination URL (input hidden): '), withSecret ? await ctx.io.promptHidden(kind === 'email' ? 'Password (input hidden, Enter for none): ' : 'Signing secret (input hidden, Enter for none): ') : '']
    : splitLines(await ctx.io.readStdin());
  const cleaned = cleanSecretInput(urlLine ?? '');
  if (!cleaned.ok) throw new UsageError(`${cleaned.reason.replace('key', 'URL')}; nothing was stored`);
  const url = cleaned.secret;
  ctx.secrets.add(url);
  let secret: string | undefined;
  if (secretLine?.trim()) {
    if (!withSecret) throw new UsageError(`a ${kind} destination takes its URL alone (a second line was given); nothing was stored`);
    const second = cleanSecretInput(secretLine);
    if (!second.ok) throw new UsageError(`${second.reason.replace('key', kind === 'email' ? 'password' : 'secret')}; nothing was stored`);
    secret = second.secret;
    ctx.secrets.add(secret);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the destination is not a URL (${kind === 'email' ? 'smtps://…' : 'https://…'}); nothing was stored`);
  }
  if (kind === 'email') {
    (await import('../notify/email.js')).emailTarget(url);
  } else {
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new UsageError(`the destination must be an https:// URL (got ${parsed.protocol}); nothing was stored`);
    if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname) && !ctx.options.allowHttp) {
      throw new UsageError(`the destination uses plain http:// to ${parsed.hostname}; use https://, or pass --allow-http if you really mean it; nothing was stored`);
    }
  }
  if (kind === 'telegram' && !parsed.searchParams.get('chat_id')) throw new UsageError('a telegram destination is the bot\'s sendMessage URL with the chat: https://api.telegram.org/botTOKEN/sendMessage?chat_id=CHAT; nothing was stored');
  const problem = notifyProblem(name, { kind, url, ...(secret ? { secret } : {}) });
  if (problem) throw new UsageError(`destination "${name}" ${problem}; nothing was stored`);
  const { profile } = await ctx.profileChoice();
  const store = await ctx.store();
  await store.updateProfile(profile, (current) => ({ ...current, notify: { ...(current.notify ?? {}), [name]: { kind, url, ...(secret ? { secret } : {}) } } }));
  await emit(ctx, {
    json: { profile, name, kind, url: maskDestination(url), signed: secret !== undefined },
    human: () => `Added ${kind} destination "${name}" (${maskDestination(url)}${secret ? (kind === 'email' ? ', with its password' : ', signed with its secret') : ''}) to profile "${profile}"; \`tally notify test ${name}\` sends a test message.\n`,
  });
}

/** stdin's first two lines (a URL, and a secret where the kind has one). */
function splitLines(text: string): [string, string | undefined] {
  const [first = '', second, ...rest] = text.replace(/\r\n/g, '\n').split('\n');
  if (rest.some((line) => line.trim() !== '')) throw new UsageError('stdin holds the URL on its first line and, for feishu, dingtalk and email, the secret or password on its second: nothing more; nothing was stored');
  return [first, second];
}

async function list(ctx: Context): Promise<void> {
  const destinations = await storedDestinations(ctx);
  await emit(ctx, {
    json: { destinations: destinations.map((d) => ({ name: d.name, kind: d.kind, url: maskDestination(d.url) })) },
    human: async () => {
      if (destinations.length === 0) return 'no notify destination is stored for this profile: `tally notify add team --kind slack < url.txt` adds one\n';
      return (await import('../output/settings.js')).renderDestinations(destinations.map((d) => ({ name: d.name, kind: d.kind, masked: maskDestination(d.url) })), ctx);
    },
  });
}

async function remove(ctx: Context, name: string): Promise<void> {
  await destinationsNamed(ctx, [name]);
  const { profile } = await ctx.profileChoice();
  const store = await ctx.store();
  await store.updateProfile(profile, (current) => {
    const { [name]: _removed, ...others } = current.notify ?? {};
    const { notify: _all, ...record } = current;
    return Object.keys(others).length ? { ...record, notify: others } : record;
  });
  await emit(ctx, { json: { profile, name, removed: true }, human: () => `Removed notify destination "${name}" of profile "${profile}".\n` });
}

async function test(ctx: Context, name: string): Promise<void> {
  const [destination] = await destinationsNamed(ctx, [name]);
  const { profile } = await ctx.profileChoice();
  await deliver(ctx, destination!, {
    profile,
    check: 'test',
    level: 'test',
    actual: null,
    limit: '',
    unit: '',
    message: `tally: a test message for profile "${profile}" to ${destination!.kind} "${name}"; alerts from \`tally check --notify ${name}\` arrive like this`,
    at: new Date(ctx.now()).toISOString(),
  });
  await emit(ctx, { json: { name, delivered: true }, human: () => `Delivered a test message to ${destination!.kind} "${name}".\n` });
}
