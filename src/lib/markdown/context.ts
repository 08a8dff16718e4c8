// What the renderer needs to know about the organization: its users by name and ID, loaded once per request.
import type { Tx } from '../../store/store.js';

export interface RenderUser {
  id: number;
  full_name: string;
}

export interface RenderContext {
  /** Lower-cased full name → users with that name (several when names collide). */
  byName: Map<string, RenderUser[]>;
  byId: Map<number, RenderUser>;
}

export function renderContextFrom(users: RenderUser[]): RenderContext {
  const byName = new Map<string, RenderUser[]>();
  const byId = new Map<number, RenderUser>();
  for (const u of users) {
    byId.set(u.id, u);
    const key = u.full_name.toLowerCase();
    const list = byName.get(key);
    if (list) list.push(u);
    else byName.set(key, [u]);
  }
  return { byName, byId };
}

const EMPTY: RenderContext = { byName: new Map(), byId: new Map() };

/**
 * One query for the realm's active users; callers keep the result for the rest of the request.
 * Content without "@" can mention nobody, so the common case skips the query.
 */
export async function loadRenderContext(tx: Tx, realmId: number, content: string): Promise<RenderContext> {
  if (!content.includes('@')) return EMPTY;
  const users = await tx.selectFrom('users').select(['id', 'full_name']).where('realm_id', '=', realmId).where('is_active', '=', 1).execute();
  return renderContextFrom(users);
}
