// tally group: groups of profiles (a team, a project) whose spend `tally usage --by group` adds up,
// each account once, the profiles in no group as "unattributed".
//   tally group set NAME --profiles P,Q | tally group list | tally group rm NAME
import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { GROUP_NAME, UNATTRIBUTED } from '../domain/groups.js';
import { emit } from '../output/emit.js';

export function configure(command: Command): void {
  const action = new Argument('<action>', 'set NAME, list or rm NAME');
  action.argChoices = ['set', 'list', 'rm'];
  // --profiles P,Q (the global option's words) names the group's profiles: the registry's fleet 'own' hands it here.
  command.addArgument(action).argument('[name]', 'the group');
}

export type GroupRequest = { action: 'set'; name: string } | { action: 'list' } | { action: 'rm'; name: string };

export function parse(flags: Record<string, unknown>, line: CommandLine): GroupRequest {
  const [action, name, ...extra] = line.args;
  if (extra.length) throw new UsageError(`\`tally group ${action}\` takes one NAME`);
  if (line.profiles && action !== 'set') throw new UsageError('--profiles goes with `tally group set NAME`');
  const named = () => {
    if (name === undefined) throw new UsageError('a group NAME is needed (e.g. platform)');
    if (!GROUP_NAME.test(name) || name === UNATTRIBUTED) throw new UsageError(`group "${name.slice(0, 64)}" must be letters, digits, . _ - (up to 64), and not "${UNATTRIBUTED}"`);
    return name;
  };
  switch (action) {
    case 'set':
      if (!line.profiles) throw new UsageError('`tally group set NAME` needs --profiles P,Q (stored profiles)');
      return { action, name: named() };
    case 'list':
      if (name !== undefined) throw new UsageError('`tally group list` takes no NAME');
      return { action };
    case 'rm':
      return { action, name: named() };
    default:
      throw new UsageError(`\`tally group ${action ?? ''}\`: the actions are set NAME, list and rm NAME`);
  }
}

export async function run(request: GroupRequest, ctx: Context): Promise<void> {
  if (ctx.options.demo && request.action !== 'list') throw new UsageError('--demo never touches stored settings');
  const store = await ctx.store();
  if (request.action === 'list') {
    const groups = store.groups();
    const inNone = store.profileNames().filter((p) => !Object.values(groups).some((g) => g.includes(p))).sort();
    const { renderGroups } = await import('../output/groups.js');
    return emit(ctx, { json: { groups: Object.keys(groups).sort().map((name) => ({ name, profiles: groups[name] })), unattributed: inNone }, human: () => renderGroups(groups, inNone, ctx) });
  }
  if (request.action === 'rm') {
    if (!Object.hasOwn(store.groups(), request.name)) throw new UsageError(`there is no group "${request.name}"`, { hint: `Groups: ${Object.keys(store.groups()).join(', ') || 'none'}.` });
    await store.updateGroups(({ [request.name]: _gone, ...rest }) => rest);
    return emit(ctx, { json: { name: request.name, removed: true }, human: () => `Removed group "${request.name}"; its profiles are unattributed.\n` });
  }
  if (ctx.options.allProfiles || ctx.options.profiles === undefined) throw new UsageError('`tally group set NAME` names its profiles: --profiles P,Q (not --all-profiles)');
  const profiles = [...new Set(ctx.options.profiles.split(',').map((p) => p.trim()).filter(Boolean))];
  const stored = new Set(store.profileNames());
  const missing = profiles.filter((p) => !stored.has(p));
  if (missing.length) throw new UsageError(`no stored profile ${missing.map((p) => `"${p}"`).join(', ')} (tally --profile NAME login stores one)`);
  await store.updateGroups((current) => {
    for (const [other, members] of Object.entries(current)) {
      const taken = other === request.name ? [] : profiles.filter((p) => members.includes(p));
      if (taken.length) throw new UsageError(`profile ${taken.map((p) => `"${p}"`).join(', ')} is in group "${other}": a profile is in one group at most (tally group set ${other} --profiles … without it first)`);
    }
    return { ...current, [request.name]: profiles };
  });
  await emit(ctx, { json: { name: request.name, profiles: profiles }, human: () => `Group "${request.name}": ${profiles.join(', ')}.\n` });
}
