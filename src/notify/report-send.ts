// A report posted to a notify destination once per period (report --send): the memory of what
// was sent is known writable before anything is sent, and taken under a lock (two runs at once
// send it once); --force sends it again.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Report } from '../figures/report.js';

/**
 * Where sent reports are remembered (the memory of `check --notify`), written back as it is to
 * know it can be written: one that cannot would have every cron run post the digest again.
 */
export async function reportMemory(ctx: Context, profile: string) {
  const [{ alertStatePath, readAlertState, writeAlertState }, client, stateDir] = await Promise.all([import('../settings/alert-state.js'), ctx.client(), ctx.stateDir()]);
  const path = alertStatePath(stateDir, profile, client.baseUrl, client.credential?.secret);
  const read = () => {
    const { state } = readAlertState(path);
    try {
      writeAlertState(path, state);
    } catch (error) {
      throw new UsageError(`the report was not sent: tally could not remember sending it (${(error as Error).message}), so every run would send it again`, { cause: error });
    }
    return state;
  };
  return { path, read, write: writeAlertState };
}

/** Posts the report once per period and destination; the memory is known writable before anything is sent. */
export async function sendReport(ctx: Context, report: Report, profile: string, destination: import('../notify/send.js').Destination, memory: Awaited<ReturnType<typeof reportMemory>>, force: boolean): Promise<void> {
  const [{ alertKey }, { withRunLock }, { deliverPayload }, { reportPayload }, { periodLabel }] = await Promise.all([
    import('../settings/alert-state.js'),
    import('../locking.js'),
    import('../notify/send.js'),
    import('../notify/report-payloads.js'),
    import('../output/report.js'),
  ]);
  const key = alertKey(destination.name, `report:${report.kind}:${report.window.start}:${report.window.end}`);
  await withRunLock(ctx, `${memory.path}.lock`, 'the memory of sent reports', async () => {
    const state = memory.read();
    if (state.conditions[key] && !force) {
      ctx.note(`the report for the ${periodLabel(report)} was sent to "${destination.name}" already (--force sends it again)`);
      return;
    }
    await deliverPayload(ctx, destination, reportPayload(destination.kind, report, profile, (text) => ctx.secrets.scrubMessage(text)));
    memory.write(memory.path, { conditions: { ...state.conditions, [key]: { level: 'warn', period: report.window.start } } });
    ctx.note(`sent the report for the ${periodLabel(report)} to ${destination.kind} "${destination.name}"`);
  });
}
