// Remembers a pure function's results by string argument, for header values that repeat on every request (Host, User-Agent).

/**
 * The memo is emptied when it holds `max` entries: real traffic has a handful of distinct values,
 * and a client sending endless new ones only costs itself the recomputation.
 */
export function memoByString<T>(fn: (s: string) => T, max = 1024): (s: string) => T {
  const memo = new Map<string, T>();
  return (s) => {
    let value = memo.get(s);
    if (value === undefined) {
      value = fn(s);
      if (memo.size >= max) memo.clear();
      memo.set(s, value);
    }
    return value;
  };
}
