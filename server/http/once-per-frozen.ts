/**
 * `fn` computed once per frozen object: the domain hands out the same frozen object (a monitor,
 * a page of monitors, a kept answer) until what it shows changes, so what a surface derives from
 * it (a message, a shape, its JSON) can be reused as long as the object lives. An object that is
 * not frozen may still change, and is computed afresh each time.
 */
export function oncePerFrozen<K extends object, R>(fn: (key: K) => R): (key: K) => R {
  const kept = new WeakMap<K, R>();
  return (key) => {
    if (kept.has(key)) return kept.get(key)!;
    const value = fn(key);
    if (Object.isFrozen(key)) kept.set(key, value);
    return value;
  };
}
