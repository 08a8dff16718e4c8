// Waiting in tests for what the server does after it answered (a worker's delivery, an after-commit step), polled, with a ceiling.

/** Polls fn until it returns something truthy and returns that; fails after ms with what was awaited. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false | null>, ms = 10_000, everyMs = 25): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
