// Tables repeat their values (the same price on thousands of models, the same zero in most
// buckets of a long window): a formatter wrapped here works each distinct one out once.

/** One result per distinct argument (strings by value, objects and arrays by identity). */
export function memo<K, V>(compute: (key: K) => V): (key: K) => V {
  const seen = new Map<K, V>();
  return (key) => {
    let value = seen.get(key);
    if (value === undefined) seen.set(key, (value = compute(key)));
    return value;
  };
}
