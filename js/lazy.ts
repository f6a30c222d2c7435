/**
 * A property computed on first read, then kept as a plain data property. A scan of 20,000 files
 * drops 19,800 of them past the cap: as objects made on every turn they are work and garbage
 * (collector pauses) for a list most callers never read.
 */
export function lazyProperty<T extends object, K extends PropertyKey, V>(target: T, key: K, compute: () => V): T & Record<K, V> {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get(this: T) {
      const value = compute();
      Object.defineProperty(this, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
    set(this: T, value: V) {
      Object.defineProperty(this, key, { value, enumerable: true, configurable: true, writable: true });
    },
  });
  return target as T & Record<K, V>;
}
