// realm_users as JSON text written by SQLite, in presentUser's shape; the rows it cannot finish (bots, deleted users, Gravatar URLs to hash, profile data) are presented in JavaScript.
import { sql, type RawBuilder } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { User } from '../../store/schema.js';
import { PRESENTED_USER_COLUMNS, type PresentedUser } from '../../presenters/user.js';
import { Role } from '../../models/roles.js';

const bool = (cond: RawBuilder<unknown>) => sql`json(CASE WHEN ${cond} THEN 'true' ELSE 'false' END)`;

/**
 * The active users of the realm as a JSON array's text, ascending by ID. Each object has
 * presentUser's keys in its order with profile_data {} (a user with profile data goes through
 * `present`, as do bots, deleted users and Gravatar URLs that need a hash). delivery_email follows
 * canSeeDeliveryEmail. For 10,000 people this is about a third of parsing the rows into objects,
 * presenting and serializing them (docs/performance.md, register at scale). SQLite only.
 */
export async function activeUsersJson(
  tx: Tx,
  realmId: number,
  viewer: Pick<User, 'id' | 'role'>,
  clientGravatar: boolean,
  hasProfileData: (userId: number) => boolean,
  present: (u: PresentedUser) => Record<string, unknown>,
): Promise<string> {
  // emailVisibility: 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators (bots go to JavaScript).
  const visibility = sql`coalesce(json_extract(CASE WHEN u.settings = '' THEN '{}' ELSE u.settings END, '$.email_address_visibility'), 1)`;
  const seesAll = viewer.role <= Role.ADMINISTRATOR;
  const seesDelivery = seesAll
    ? sql`1`
    : sql`(u.id = ${viewer.id} OR ${visibility} = 1 OR (${visibility} = 2 AND ${viewer.role <= Role.MEMBER ? 1 : 0}) OR (${visibility} = 5 AND ${viewer.role <= Role.MODERATOR ? 1 : 0}))`;
  const inJs = sql`(u.is_bot <> 0 OR u.is_deleted <> 0 OR (u.avatar_source = 'G' AND NOT (${clientGravatar ? 1 : 0} AND u.email = u.delivery_email)))`;
  const { rows } = await sql<{ id: number; j: string | null }>`
    SELECT u.id AS id, CASE WHEN ${inJs} THEN NULL ELSE json_object(
      'user_id', u.id,
      'email', u.email,
      'delivery_email', CASE WHEN ${seesDelivery} THEN u.delivery_email END,
      'full_name', u.full_name,
      'date_joined', strftime('%Y-%m-%dT%H:%M:%S+00:00', u.date_joined, 'unixepoch'),
      'is_active', ${bool(sql`u.is_active = 1`)},
      'is_owner', ${bool(sql`u.role = ${Role.OWNER}`)},
      'is_admin', ${bool(sql`u.role <= ${Role.ADMINISTRATOR}`)},
      'is_guest', ${bool(sql`u.role = ${Role.GUEST}`)},
      'is_bot', json('false'),
      'bot_type', NULL,
      'bot_owner_id', NULL,
      'role', u.role,
      'timezone', u.timezone,
      'avatar_url', CASE WHEN u.avatar_source = 'G' THEN NULL ELSE '/api/v1/user_avatars/' || u.realm_id || '/' || u.id || '/standard.png?version=' || u.avatar_version END,
      'avatar_version', u.avatar_version,
      'is_imported_stub', ${bool(sql`u.is_imported_stub = 1`)},
      'profile_data', json('{}')
    ) END AS j
    FROM users u
    WHERE u.realm_id = ${realmId} AND u.is_active = 1
    ORDER BY u.id`.execute(tx);
  const rest = rows.filter((r) => r.j === null || hasProfileData(r.id)).map((r) => r.id);
  const presented = new Map<number, string>();
  for (let at = 0; at < rest.length; at += 500) {
    const users = await tx.selectFrom('users').select(PRESENTED_USER_COLUMNS).where('id', 'in', rest.slice(at, at + 500)).execute();
    for (const u of users) presented.set(u.id, JSON.stringify(present(u)));
  }
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) parts[i] = presented.get(rows[i].id) ?? rows[i].j!;
  return `[${parts.join(',')}]`;
}
