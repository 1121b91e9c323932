// The ledger of a run (`tally export`): one profile's, or every profile's one after another (a
// ledger is complete or not written at all); with a file being appended to, the periods it holds
// for each profile and gateway are not asked again, and only periods that have ended are.
import type { Context } from '../context.js';
import { type Ledger, type LedgerRequest, loadLedger } from './ledger.js';
import type { HeldPeriods } from '../domain/ledger-format.js';
import type { LedgerFile } from './ledger-append.js';

export interface Ledgers {
  /** Each profile's ledger (its name under --all-profiles), in the order asked; a device token's is left out there. */
  exported: { profile: string | undefined; ledger: Ledger }[];
  /** Dates the file holds as periods that had not ended (complete=false), with their profile across profiles. */
  partial: string[];
}

export async function loadLedgers(ctx: Context, request: LedgerRequest, file: { file: LedgerFile; held: HeldPeriods } | undefined): Promise<Ledgers> {
  const fleet = ctx.options.allProfiles === true || ctx.options.profiles !== undefined;
  const appending = file && (await import('./ledger-append.js'));
  const partial: string[] = [];
  const exportOne = async (profileCtx: Context, name: string): Promise<Ledger | undefined> => {
    const settings = await profileCtx.settings();
    // A device token reads the balance only: it has no usage to put in a ledger, which the others still get.
    if (fleet && settings.credential?.kind === 'device-token') {
      ctx.note(`profile "${name}" is signed in with a device token, which reads no usage: it is left out of the ledger (\`tally --profile ${name} login --with-token\` gives it an API key)`);
      return undefined;
    }
    const gateway = await profileCtx.gatewayIdentity();
    const held = file && appending!.heldDates(file.held, file.file, settings.profile, gateway.href);
    if (held) partial.push(...held.partial.map((d) => `${d}${fleet ? ` (${settings.profile})` : ''}`));
    try {
      return await loadLedger(profileCtx, { ...request, ...(held && { skipDates: held.dates }), endedOnly: file !== undefined });
    } catch (error) {
      // A ledger is whole or not written: which profile stopped it is said before its error.
      if (fleet) ctx.warn(`profile "${name}" could not be exported, so nothing was written`);
      throw error;
    }
  };
  const { acrossProfiles } = await import('../across-profiles.js');
  // One profile after another: a ledger is complete or not written at all.
  const results = fleet ? (await acrossProfiles(ctx, exportOne, { sequential: true, failFast: true })).map((r) => ({ profile: r.profile as string | undefined, ledger: (r as { value: Ledger | undefined }).value })) : [{ profile: undefined, ledger: await exportOne(ctx, (await ctx.settings()).profile) }];
  return { exported: results.filter((r): r is { profile: string | undefined; ledger: Ledger } => r.ledger !== undefined), partial };
}
