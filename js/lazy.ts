/**
 * A property computed on first read, then kept as a plain data property. A scan of 20,000 files
 * drops 19,800 of them past the cap: as objects made on every turn they are work and garbage
 * (collector pauses) for a list most callers never read.
 *
 * Computed once whatever reads it: an object frozen or sealed before the first read cannot take
 * the plain property (the getter stays, and gives the same value), nor can an object made from
 * it (`Object.create`) change what the target gives.
 */
export function lazyProperty<T extends object, K extends PropertyKey, V>(target: T, key: K, compute: () => V): T & Record<K, V> {
  let made = false;
  let value: V;
  const once = (): V => {
    if (!made) {
      value = compute();
      made = true;
    }
    return value;
  };
  const plain = (on: object, v: V): boolean => Reflect.defineProperty(on, key, { value: v, enumerable: true, configurable: true, writable: true });
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get(this: T) {
      const v = once();
      plain(this, v); // `false` on a frozen or sealed object: the getter stays
      return v;
    },
    set(this: T, v: V) {
      // as a frozen object's data property: assignment is refused
      if (!plain(this, v)) throw new TypeError(`Cannot assign to read only property '${String(key)}'`);
    },
  });
  return target as T & Record<K, V>;
}
