// PostgreSQL clients for Kysely that save round trips and server work: the hot, fixed statements
// (compiled-query.ts) run as named prepared statements, and a transaction's BEGIN travels with its
// first statement instead of alone.
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

interface Registered {
  /** Its prepared statement's name; undefined for a text that stays unnamed (see registerStatement). */
  name: string | undefined;
  /** Whether integer values may be written in place of its placeholders, to send it with BEGIN. */
  withBegin: boolean;
}

/** The registered statement texts. Only these are named, so a connection holds a bounded set. */
const statements = new Map<string, Registered>();
let named = 0;

/**
 * Registers a fixed statement text (compiled-query.ts): from now on it runs as a named prepared
 * statement, except one returning `*`, whose result columns would change under it when another
 * node's migration adds a column (PostgreSQL then refuses to run it). withBegin: its values are
 * integers compared with integer columns, so when it opens a transaction they can be written into
 * the text and sent with the BEGIN.
 */
export function registerStatement(text: string, opts: { withBegin: boolean }): void {
  if (statements.has(text)) return;
  const name = /select \*|\.\*/.test(text) ? undefined : `parley_${++named}`;
  statements.set(text, { name, withBegin: opts.withBegin && onlyPlaceholders(text) });
}

/**
 * Whether every `$` of the text starts a placeholder `$n`, so values can be written in their
 * place: no string literal, dollar quoting, comment, or dollar inside a quoted identifier.
 */
export function onlyPlaceholders(text: string): boolean {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '$' && (quoted || !(text[i + 1] >= '0' && text[i + 1] <= '9'))) return false;
    else if (quoted) continue;
    else if (c === "'" || (c === '-' && text[i + 1] === '-') || (c === '/' && text[i + 1] === '*')) return false;
  }
  return true;
}

/** How a text runs (for tests). */
export function registration(text: string): Readonly<Registered> | undefined {
  return statements.get(text);
}

/**
 * Wraps a pool for Kysely's PostgresDialect. Kysely runs every statement unnamed, which makes the
 * server parse and plan it on each run (a quarter of its work for a channel send), and sends BEGIN
 * as a round trip of its own: on this loopback a socket write costs tens of microseconds.
 */
export function namedStatementPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) wrapped.set(client, (w = new DeferredBeginClient(client) as unknown as PostgresPoolClient));
      return w;
    },
    end: () => pool.end(),
  };
}

type Result = PostgresQueryResult<unknown>;

/** What Kysely reads of a BEGIN, COMMIT or ROLLBACK that was not sent (no rows, no row count). */
const NOTHING: Result = { command: 'SELECT', rowCount: 0, rows: [] };

/**
 * One pooled connection. A plain BEGIN is held back and sent with the transaction's next
 * statement in one simple-protocol message ("BEGIN; …"), when that statement has no values, or is
 * registered withBegin and its values are all integers, which are then written in place.
 * Otherwise BEGIN goes first on its own, as before. A transaction that ends before any statement
 * sends nothing at all. If the statement fails, the transaction has begun and fails, exactly as
 * if the two had been sent apart.
 */
class DeferredBeginClient {
  /** The BEGIN (or START TRANSACTION …) not sent yet. */
  private begin: string | null = null;

  constructor(private readonly client: pg.PoolClient) {}

  query(text: unknown, values?: readonly unknown[]): Promise<Result> | unknown {
    if (typeof text !== 'string') {
      // A cursor (Kysely's streaming): any held BEGIN must reach the server first.
      if (this.begin === null) return this.client.query(text as pg.Submittable);
      return this.flushBegin().then(() => this.client.query(text as pg.Submittable));
    }
    const params = (values ?? []) as unknown[];
    if (this.begin === null) {
      if (params.length === 0 && isBegin(text)) {
        this.begin = text;
        return Promise.resolve(NOTHING);
      }
      return this.run(text, params);
    }
    const begin = this.begin;
    this.begin = null;
    if (params.length === 0) {
      // A transaction with no statement: neither its start nor its end need reach the server.
      if (text === 'commit' || text === 'rollback') return Promise.resolve(NOTHING);
      return this.together(begin, text);
    }
    if (statements.get(text)?.withBegin && params.every((v) => Number.isSafeInteger(v))) {
      return this.together(begin, text.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1] as number)));
    }
    return this.client.query(begin).then(() => this.run(text, params));
  }

  release(): void {
    // Kysely always ends a transaction before releasing; a BEGIN still held was never sent.
    this.begin = null;
    this.client.release();
  }

  private run(text: string, values: unknown[]): Promise<Result> {
    const name = statements.get(text)?.name;
    return (name === undefined ? this.client.query(text, values) : this.client.query({ name, text, values })) as Promise<Result>;
  }

  /** BEGIN and one statement in one message; its result is the statement's. */
  private async together(begin: string, text: string): Promise<Result> {
    const results = (await this.client.query(`${begin}; ${text}`)) as unknown as Result | Result[];
    return Array.isArray(results) ? results[results.length - 1] : results;
  }

  private async flushBegin(): Promise<void> {
    const begin = this.begin!;
    this.begin = null;
    await this.client.query(begin);
  }
}

function isBegin(text: string): boolean {
  return text === 'begin' || text.startsWith('start transaction');
}

/** An integer as SQL; a negative one in parentheses, so no minus sign before it can make a comment. */
function literal(n: number): string {
  return n < 0 ? `(${n})` : String(n);
}
