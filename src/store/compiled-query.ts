// Statements built with Kysely once per dialect and then run with new values, so hot paths skip the query builder and compiler.
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './dialect.js';
import { registerStatement } from './pg-statements.js';

/** Stands for a value given at run time; Kysely carries it into the parameter list untouched. */
class Slot {
  constructor(readonly name: string) {}
}

interface Compiled {
  query: CompiledQuery;
  /** Per parameter position: the value's name, or undefined for a constant written into the builder. */
  names: (string | undefined)[];
}

export interface PreparedOptions {
  /**
   * PostgreSQL: the statement often opens its transaction, and its values are integers compared
   * with integer columns. They are then written into its text, which travels with the BEGIN
   * (store/pg-statements.ts): one round trip less.
   */
  withBegin?: boolean;
}

/**
 * A statement written with the query builder, where `p.<name>` marks a value supplied on each
 * run. It is built and compiled on its first run per dialect; later runs only substitute the
 * values and execute the same SQL text in the given transaction (on SQLite, the same prepared
 * statement; on PostgreSQL, a named prepared statement of the connection, see pg-statements.ts).
 * Values must be scalars used as whole parameters: a list for `in` or a value Kysely would
 * inspect (an expression, a JSON object) does not work as a slot.
 */
export class PreparedStatement<P extends object, R> {
  private readonly byDialect = new Map<Dialect, Compiled>();

  constructor(
    private readonly build: (db: Kysely<DB>, p: P) => Compilable<R>,
    private readonly options: PreparedOptions = {},
  ) {}

  /** The whole result: rows, and for writes the affected row count and (SQLite) the inserted row ID. */
  result(tx: Kysely<DB>, dialect: Dialect, values: P): Promise<QueryResult<R>> {
    return tx.executeQuery(this.bind(tx, dialect, values));
  }

  /** The result rows (empty for statements without RETURNING). */
  async rows(tx: Kysely<DB>, dialect: Dialect, values: P): Promise<R[]> {
    return (await tx.executeQuery(this.bind(tx, dialect, values))).rows;
  }

  /** The first result row, if any. */
  async first(tx: Kysely<DB>, dialect: Dialect, values: P): Promise<R | undefined> {
    return (await tx.executeQuery(this.bind(tx, dialect, values))).rows[0];
  }

  /** The compiled query with these values in place (exported for tests). */
  bind(tx: Kysely<DB>, dialect: Dialect, values: P): CompiledQuery<R> {
    const c = this.byDialect.get(dialect) ?? this.compile(tx, dialect);
    const v = values as Record<string, unknown>;
    const parameters = c.query.parameters.slice();
    for (let i = 0; i < parameters.length; i++) {
      const name = c.names[i];
      if (name === undefined) continue;
      const value = v[name];
      // undefined would be bound as NULL by one driver and rejected by the other: a caller's bug either way.
      if (value === undefined) throw new Error(`prepared statement: no value for ${name}`);
      parameters[i] = value;
    }
    return { query: c.query.query, queryId: c.query.queryId, sql: c.query.sql, parameters } as CompiledQuery<R>;
  }

  private compile(tx: Kysely<DB>, dialect: Dialect): Compiled {
    const slots = new Proxy({} as P, {
      get: (_, name) => new Slot(String(name)),
      // A spread copy ({ ...p }) would silently hold no slots, and its values would compile as constants.
      ownKeys: () => {
        throw new Error('prepared statement: the values object cannot be spread or enumerated; name each value');
      },
    });
    const query = this.build(tx, slots).compile() as CompiledQuery;
    const names = query.parameters.map((x) => (x instanceof Slot ? x.name : undefined));
    // One fixed text per statement: PostgreSQL parses and plans it once per connection.
    if (dialect === 'postgres') registerStatement(query.sql, { withBegin: this.options.withBegin ?? false });
    const c = { query, names };
    this.byDialect.set(dialect, c);
    return c;
  }
}

/** Declares a statement (see PreparedStatement): `prepared<{ id: number }, Row>((db, p) => db.selectFrom(…).where('id', '=', p.id))`. */
export function prepared<P extends object, R>(build: (db: Kysely<DB>, p: P) => Compilable<R>, options?: PreparedOptions): PreparedStatement<P, R> {
  return new PreparedStatement(build, options);
}
