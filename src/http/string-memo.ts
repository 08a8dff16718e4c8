// Strings from requests that outlive them: a memo by header value (Host, User-Agent), and copies that let the request's head go.

/**
 * A copy of s that does not keep alive the string it was cut from. The request head is read as one
 * string and its values are slices: V8 keeps a slice's whole parent, so a header value kept in a
 * cache would keep its request's head (a few hundred bytes) for as long as the cache entry lives.
 */
export function detached(s: string): string {
  // JSON.parse builds the string afresh from its text.
  return JSON.parse(JSON.stringify(s)) as string;
}

/**
 * The memo is emptied when it holds `max` entries: real traffic has a handful of distinct values,
 * and a client sending endless new ones only costs itself the recomputation.
 */
export function memoByString<T>(fn: (s: string) => T, max = 1024): (s: string) => T {
  const memo = new Map<string, T>();
  return (s) => {
    let value = memo.get(s);
    if (value === undefined) {
      // The result may be a slice of its argument too: cut from the copy, it keeps nothing else.
      const key = detached(s);
      value = fn(key);
      if (memo.size >= max) memo.clear();
      memo.set(key, value);
    }
    return value;
  };
}
