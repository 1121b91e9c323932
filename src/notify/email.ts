// E-mail over SMTP (nodemailer, loaded only for this kind): the destination is a URL,
// `smtps://USER@HOST:465?from=ADDR&to=ADDR,ADDR` (TLS from the first byte) or `smtp://…:587`
// (STARTTLS, required unless the host is this machine), the password the secret stored beside it.
// TALLY_CA_FILE's authorities are trusted, as for every connection tally makes.
import type { Context } from '../context.js';
import { NetworkError, ServiceError, UsageError } from '../errors.js';
import { isLoopback } from '../domain/loopback.js';
import type { Delivery } from './payloads.js';

export interface EmailTarget {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  from: string;
  to: string[];
}

const ADDRESS = /^[^\s@<>,;"]{1,64}@[^\s@<>,;"]{1,255}$/;

/** What an smtp(s):// destination names; a usage error saying what is missing. */
export function emailTarget(text: string): EmailTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError('an e-mail destination is smtps://USER@HOST:465?from=ADDRESS&to=ADDRESS (or smtp:// with STARTTLS)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new UsageError(`an e-mail destination is an smtps:// or smtp:// URL (got ${url.protocol})`);
  const to = (url.searchParams.get('to') ?? '').split(',').map((a) => a.trim()).filter(Boolean);
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  const from = url.searchParams.get('from') ?? (user && ADDRESS.test(user) ? user : '');
  if (to.length === 0 || !to.every((a) => ADDRESS.test(a))) throw new UsageError('an e-mail destination names who it goes to: ?to=ADDRESS[,ADDRESS]');
  if (!ADDRESS.test(from)) throw new UsageError('an e-mail destination names its sender: ?from=ADDRESS (or a USER that is an address)');
  const secure = url.protocol === 'smtps:';
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : secure ? 465 : 587, secure, user, from, to };
}

export async function sendEmail(ctx: Context, what: string, url: string, password: string | undefined, payload: Delivery): Promise<void> {
  const target = emailTarget(url);
  const [{ importExternal }, { readCaFile }] = await Promise.all([import('../external.js'), import('../api/transport.js')]);
  const nodemailer = await importExternal<typeof import('nodemailer')>('nodemailer');
  const ca = readCaFile(ctx.env);
  const timeout = Math.max(1000, ctx.deadline - ctx.now());
  const transport = nodemailer.createTransport({
    host: target.host,
    port: target.port,
    secure: target.secure,
    // STARTTLS is required off this machine: a password never crosses a network in the clear.
    requireTLS: !target.secure && !isLoopback(target.host),
    ...(target.user ? { auth: { user: target.user, pass: password ?? '' } } : {}),
    ...(ca ? { tls: { ca } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  try {
    const sent = await Promise.race([
      transport.sendMail({ from: target.from, to: target.to, subject: payload.title ?? 'tally', text: payload.body }),
      new Promise<never>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.abortError()), { once: true })),
    ]);
    if (sent.rejected.length > 0) throw new ServiceError(`${what}: the mail server refused ${sent.rejected.length} of ${target.to.length} recipients`);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.abortError();
    if (error instanceof ServiceError || error instanceof UsageError) throw error;
    const e = error as { code?: string; responseCode?: number; response?: string };
    if (e.responseCode) throw new ServiceError(`${what}: the mail server answered ${e.responseCode} (${ctx.secrets.scrubMessage(String(e.response ?? '').slice(0, 200))})`);
    throw new NetworkError(`${what} could not be reached (${e.code ?? 'no connection'})`);
  } finally {
    transport.close();
  }
}
