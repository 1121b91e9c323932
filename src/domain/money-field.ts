// Which field of a record the gateway puts its money in, where the names are not published: the
// one rule for usage buckets, records of spend per model and the per-call log. Among the fields
// that hold decimal amounts, what was charged (cost, charge, spend, billed, amount, fee, yuan)
// before a quota, before a price; never a unit price (a rate per token, not what was charged);
// else the first of them.
const CHARGED = [/cost|charge|spend|billed|amount|fee|yuan/i, /quota/i, /price/i];
const A_RATE = /unit|per_?(token|million|1k|m)\b/i;

/** The money field among `names` (fields holding decimal amounts, in the records' order); undefined when there are none. */
export function moneyFieldOf(names: readonly string[]): string | undefined {
  const named = CHARGED.map((pattern) => names.find((name) => pattern.test(name) && !A_RATE.test(name))).find((name) => name !== undefined);
  return named ?? names[0];
}
