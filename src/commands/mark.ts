// tally mark [NAME]: the spend counters now, for `check --max-run-spend` at the end of a CI job:
// the account's lifetime_spend and, for an API key, the key's daily_cost_used with the day of
// the gateway's grid it belongs to. In the state folder, or --file PATH (a job's workspace, or
// an artifact passed between jobs).
import type { Command } from 'commander';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { isoInZone } from '../domain/zone.js';
import { emit } from '../output/emit.js';
import { isUnreachable } from '../errors.js';
import { credentialId } from '../settings/cache-key.js';
import { writeReportFile } from '../settings/report-file.js';
import { MARK_VERSION, type Mark, checkMarkName, markOf, markPath, markText, writeMark } from '../settings/marks.js';
import { readCounters } from '../figures/run-spend.js';

export function configure(command: Command): void {
  command
    .argument('[name]', 'the mark (default "run")');
}

export const flags = declareFlags({
  file: { kind: 'value', value: 'path', help: 'write the mark to this file instead of the state folder' },
  failOpen: { kind: 'switch', help: 'an unreachable service records that no mark was taken (exit 0, a warning); check --max-run-spend --fail-open then skips' },
});

/** The mark's name, where it goes (a file named, else the state folder), and whether a blip is recorded. */
export interface MarkRequest {
  name: string;
  file: string | undefined;
  failOpen: boolean;
}

export function parse(given: FlagValues<typeof flags>, line: CommandLine): MarkRequest {
  return { name: checkMarkName(line.args[0] ?? 'run'), file: given.file, failOpen: given.failOpen === true };
}

export async function run(request: MarkRequest, ctx: Context): Promise<void> {
  const { name } = request;
  if (ctx.options.demo && request.file === undefined) throw new UsageError('--demo never touches stored state: a demo mark goes to a file you name (--file PATH)');
  const [settings, client, gateway] = await Promise.all([ctx.settings(), ctx.client(), ctx.gatewayIdentity()]);
  const secret = client.credential?.secret ?? '';
  const head = { version: MARK_VERSION, name, profile: settings.profile, base_url: gateway.href, credential_id: credentialId(secret) };
  let mark: Mark;
  try {
    const { balance, now, reading } = await readCounters(ctx);
    mark = { ...head, currency: balance.currency, at: now, at_iso: isoInZone(now, ctx.zone), ...markOf(reading) };
  } catch (error) {
    // --fail-open: a gateway blip at the job's start is recorded, so the final check can skip, not fail.
    if (!request.failOpen || !isUnreachable(error)) throw error;
    const now = Math.floor(ctx.now() / 1000);
    const reason = ctx.secrets.scrubMessage((error as Error).message).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 500);
    mark = { ...head, at: now, at_iso: isoInZone(now, ctx.zone), not_taken: reason } as Mark;
    ctx.warn(`--fail-open: no mark was taken, because the service could not be reached (${reason}); check --max-run-spend --fail-open will skip`);
  }
  const path = request.file ?? markPath(await ctx.stateDir(), name, settings.profile, gateway, secret);
  // A file the user names follows the rule of every report file; the state folder's is tally's own.
  if (request.file !== undefined) writeReportFile(path, markText(mark), { flag: '--file', mode: 0o600, scrub: (t) => ctx.secrets.scrub(t) });
  else writeMark(path, mark);
  await emit(ctx, {
    json: mark,
    human: () =>
      mark.not_taken !== undefined
        ? `No mark "${name}" was taken at ${mark.at_iso}: the service could not be reached. Saved in ${path} as such; \`tally check --max-run-spend AMOUNT --fail-open\` skips the run-spend check.\n`
        : `Marked "${name}" at ${mark.at_iso}: lifetime spend ${mark.lifetime_spend} ${mark.currency}${mark.key ? `, this key's spend today ${mark.key.daily_cost_used}` : ''}.\nSaved in ${path}; \`tally check --max-run-spend AMOUNT${name === 'run' ? '' : ` --mark ${name}`}\` gates what this run spends.\n`,
  });
}
