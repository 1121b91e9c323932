// "Did you mean": the one rule every closed set of values uses (choices of a flag, zones, time
// words, weekdays, stored profiles, budgets, destinations, a key's models) to name the value that
// was most likely meant. Close means the same letters and digits ignoring case and punctuation
// (`gpt5` for `gpt-5`), or within a few edits (a letter missing, added, changed or two swapped),
// fewer for short words; nothing is suggested when nothing is that close, or two are equally so.

/** Edits between two strings (optimal string alignment: insert, delete, substitute, swap two neighbours). */
export function editDistance(a: string, b: string, cap = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    // Every later row is at least this row's smallest: past the cap, the answer is "too far".
    if (best > cap) return cap + 1;
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

const squeeze = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** The value of `choices` that `typed` most likely meant, or undefined when none is close (or two are equally close). */
export function nearest(typed: string, choices: Iterable<string>): string | undefined {
  const text = typed.trim();
  if (text === '' || text.length > 200) return undefined;
  const lower = text.toLowerCase();
  const squeezed = squeeze(text);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const choice of choices) {
    if (choice === text) return undefined;
    // The same but for case or punctuation: surely meant.
    const c = choice.toLowerCase();
    const distance = c === lower ? 0 : squeezed !== '' && squeeze(choice) === squeezed ? 0.5 : editDistance(lower, c, 3);
    if (distance < bestDistance) {
      best = choice;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance && choice !== best) tied = true;
  }
  if (best === undefined || tied) return undefined;
  // One edit in a short word, two from six letters, three from twelve.
  const allowed = Math.max(text.length, best.length) >= 12 ? 3 : Math.max(text.length, best.length) >= 6 ? 2 : 1;
  return bestDistance <= allowed ? best : undefined;
}

/** The hint line: `Did you mean "week"?`, or undefined when nothing is close. */
export function didYouMean(typed: string, choices: Iterable<string>): string | undefined {
  const meant = nearest(typed, choices);
  return meant === undefined ? undefined : `Did you mean "${meant}"?`;
}

/** The hint for a name that is not stored (a profile, a budget, a destination): the one meant, if any, then those there are. */
export function storedNamesHint(typed: string, names: string[], label: string, none: string): string {
  const meant = didYouMean(typed, names);
  return [...(meant ? [meant] : []), names.length ? `${label}: ${names.join(', ')}.` : none].join('\n');
}
