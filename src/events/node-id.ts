// This node's id: given (--node-id, PARLEY_NODE_ID) or generated once and kept in the data
// directory; on PostgreSQL a live node holds it with a session lock, so a duplicate is refused.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** The configured id, else the one kept in dataDir/node-id (made on first start). */
export function resolveNodeId(configured: string, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'node-id');
  try {
    const kept = fs.readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  } catch {
    // First start in this directory.
  }
  const id = `n${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, id + '\n');
  return id;
}

/**
 * PostgreSQL: takes a session advisory lock named by the id on a connection of its own, held while
 * the node runs (a killed node's connection closes and frees it). Refuses an id that a live node
 * holds. Resolves to the release.
 */
export async function claimNodeId(databaseUrl: string, nodeId: string): Promise<() => Promise<void>> {
  if (!databaseUrl) return async () => {};
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // A dropped connection frees the id: the node should then stop, but must not crash on the event.
  client.on('error', () => {});
  const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)::bigint + 4294967296) AS ok', [`parley-node:${nodeId}`]);
  if (!r.rows[0].ok) {
    await client.end();
    throw new Error(`Node id "${nodeId}" is in use by another running node of this database: give each node its own --node-id (PARLEY_NODE_ID), or none to have one generated.`);
  }
  return async () => {
    await client.end().catch(() => {});
  };
}
