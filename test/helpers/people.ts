// Fixtures shared by the people tests: limiting who may see whom, making bots.
import type { Client, TestServer } from './server.js';
import { Client as ApiClient } from './server.js';

/** Only members may see everyone: guests see themselves, bots and those sharing a channel with them. */
export async function limitAccessToMembers(s: TestServer): Promise<void> {
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const members = await app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:members').executeTakeFirstOrThrow();
  const settings = { ...JSON.parse(realm.settings), can_access_all_users_group: members.id };
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  s.realm.settings = JSON.stringify(settings);
}

/** Creates a bot owned by `owner` and returns a client acting as it. */
export async function newBot(s: TestServer, owner: Client, short: string, extra: Record<string, unknown> = {}): Promise<ApiClient> {
  const r = await owner.ok('POST', 'bots', { full_name: `${short} bot`, short_name: short, ...extra });
  const email = (await owner.ok('GET', `users/${r.user_id}`)).user.email as string;
  return new ApiClient(s, r.user_id, email, r.api_key);
}

/** Grants the operator-only can_create_users permission (POST /users), as an operator would in the database. */
export async function grantCanCreateUsers(s: TestServer, userId: number): Promise<void> {
  await s.running.app.store.db.updateTable('users').set({ can_create_users: 1 }).where('id', '=', userId).execute();
  s.running.app.caches.userChanged(userId);
}
