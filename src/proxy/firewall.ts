// A spending firewall opened for a profile: the ledger of its limits, the server in front of the
// gateway (the profile's key forwarded, a local token asked of clients), and the reconcile loop
// that books each call's charge from the key's log as it lands. `tally proxy` and `tally run
// --proxy` both open one here; nothing of it is written twice.
import { randomBytes } from 'node:crypto';
import type { Context } from '../context.js';
import type { HttpClient } from '../api/http.js';
import { SpendLedger, type SpendLimit } from './ledger.js';
import { Reconciler, reconcileLoop } from './reconcile.js';
import { type RunningProxy, startProxy } from './server.js';
import { catalogPrices } from './prices.js';

export interface FirewallOptions {
  host: string;
  port: number;
  failClosed: boolean;
  log?: (entry: Record<string, unknown>) => void;
  /** Said on stderr: the reconcile loop's trouble. */
  say: (text: string) => void;
}

export interface Firewall {
  url: string;
  token: string;
  ledger: SpendLedger;
  reconciler: Reconciler;
  /** Stops taking calls, waits for those in flight, then stops following the log. */
  close(): Promise<void>;
}

export async function openFirewall(ctx: Context, client: HttpClient, limits: SpendLimit[], options: FirewallOptions): Promise<Firewall> {
  if (client.credential?.kind !== 'api-key') throw new (await import('../errors.js')).UsageError('the spending firewall forwards calls with an API key: this profile holds no key (tally login --with-token)');
  const ledger = new SpendLedger(limits);
  const reconciler = new Reconciler(ledger, ctx.now);
  const token = randomBytes(32).toString('base64url');
  ctx.secrets.add(token);
  // Each model's prices and output limit, from the catalog (cached as every command keeps it).
  const prices = await catalogPrices(ctx);
  const since = Math.floor(ctx.now() / 1000);
  const proxy: RunningProxy = await startProxy({
    // Each client's call on a connection of its own (up to 256 at once): a stream is never queued behind another.
    transport: ctx.forwardingTransport(256),
    gateway: client.baseUrl,
    credential: client.credential.secret,
    token,
    ledger,
    prices,
    failClosed: options.failClosed,
    timeoutMs: ctx.options.timeout * 1000,
    host: options.host,
    port: options.port,
    ended: (id, marks) => reconciler.ended(id, marks),
    ...(options.log ? { log: options.log } : {}),
  });
  const stopFollowing = new AbortController();
  const counted = limits.some((l) => l.scope === 'budget');
  const following = reconcileLoop(ctx, reconciler, since, stopFollowing.signal, options.say, () => counted || reconciler.waiting > 0);
  return {
    url: proxy.url,
    token,
    ledger,
    reconciler,
    close: async () => {
      await proxy.close();
      stopFollowing.abort();
      await following;
    },
  };
}
