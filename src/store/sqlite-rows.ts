// Result rows of a read statement built from better-sqlite3's array rows by a per-statement row maker.
import type Database from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

/**
 * better-sqlite3 builds each row object by setting one property at a time through V8's API: about
 * 2× the cost of reading the row as an array and making the object here, and rows of more than
 * about 16 columns come out in V8's dictionary mode (slow to read, several times the memory). A
 * function made once per statement, returning an object literal with the statement's columns,
 * gives objects with fast properties, all of one shape.
 */
export function rowStatement(st: Database.Statement): SqliteStatement {
  const names = st.columns().map((c) => c.name);
  const makeRow = rowMaker(names);
  const rows = st.raw(true);
  return {
    reader: true,
    all: (parameters) => rows.all(parameters as unknown[]).map(makeRow as (r: unknown) => unknown),
    run: (parameters) => st.run(parameters as unknown[]),
    *iterate(parameters) {
      for (const r of rows.iterate(parameters as unknown[])) yield makeRow(r as unknown[]);
    },
  };
}

/** (row) => ({ "a": row[0], "b": row[1], … }). Names are our own SQL's column names, quoted as JSON. */
export function rowMaker(names: string[]): (row: unknown[]) => Record<string, unknown> {
  // `__proto__: v` in a literal would set the prototype; as a computed key it is a plain property.
  const fields = names.map((n, i) => `${n === '__proto__' ? '["__proto__"]' : JSON.stringify(n)}: row[${i}]`).join(', ');
  // A duplicate name keeps its last value, as the driver's objects do.
  return new Function('row', `return { ${fields} };`) as (row: unknown[]) => Record<string, unknown>;
}
