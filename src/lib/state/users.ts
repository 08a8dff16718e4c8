// Register state for realm_user: every user the viewer may see, and the viewer's own identity.
import type { StateFetcher } from './context.js';
import { JsonText } from '../../core/json-text.js';
import { cachedUsers, userJson, type CachedUser, type PresentOptions } from './user-json.js';
import { accessibleUserIds, canSeeDeliveryEmail } from '../users.js';
import type { User } from '../../store/schema.js';
import { unknownUser } from '../../models/unknown-user.js';
import { realmProfileData } from '../profile-fields.js';
import { avatarInfo, avatarUrl } from '../../presenters/avatar.js';
import { Role } from '../../models/roles.js';

interface Lists {
  active: JsonText;
  inactive: JsonText;
}

/**
 * The two lists' texts for a viewer who may access everyone: the same for every viewer of one role
 * (with the same options), except where the viewer's own row would be hidden from their role, so
 * they are kept beside the cached user list (a few variants: each is megabytes for 10,000 people).
 * Only with `keep` (SQLite, whose user list is itself kept while unchanged, user-json.ts).
 */
const shared = new WeakMap<readonly CachedUser[], Map<string, Lists>>();
const MAX_SHARED_VARIANTS = 4;

function sharedLists(users: readonly CachedUser[], viewer: User | null, present: PresentOptions, profiles: Map<number, Record<string, unknown>>, keep: boolean): Lists {
  // Anyone of the viewer's role, not the viewer: their own row is the only one that may differ.
  const anyone = viewer ? { id: -1, role: viewer.role } : null;
  const own = viewer ? users.find((e) => e.row.id === viewer.id) : undefined;
  const cacheable = keep && (!own || canSeeDeliveryEmail(anyone, own.row));
  const key = `${anyone?.role ?? 'spectator'}:${present.clientGravatar}:${present.avatarOptional}`;
  let variants = shared.get(users);
  const kept = cacheable ? variants?.get(key) : undefined;
  if (kept) return kept;
  const active: string[] = [];
  const inactive: string[] = [];
  for (const e of users) (e.row.is_active ? active : inactive).push(userJson(e, viewer, present, profiles));
  const text = { active: `[${active.join(',')}]`, inactive: `[${inactive.join(',')}]` };
  if (!cacheable) return { active: new JsonText(text.active), inactive: new JsonText(text.inactive) };
  // Kept as UTF-8 only: every answer that carries them copies the bytes instead of encoding the text.
  const lists = { active: JsonText.fromBytes(Buffer.from(text.active)), inactive: JsonText.fromBytes(Buffer.from(text.inactive)) };
  if (!variants) shared.set(users, (variants = new Map()));
  if (variants.size >= MAX_SHARED_VARIANTS) variants.clear();
  variants.set(key, lists);
  return lists;
}

/**
 * A restricted viewer (can_access_all_users_group) gets only the users they may access; with
 * user_list_incomplete the rest are left out, otherwise each is an "Unknown user" placeholder in
 * its place by ID.
 */
function restrictedLists(users: readonly CachedUser[], viewer: User | null, access: Set<number>, placeholders: boolean, present: PresentOptions, profiles: Map<number, Record<string, unknown>>): Lists {
  const active: string[] = [];
  const inactive: string[] = [];
  for (const e of users) {
    if (!access.has(e.row.id)) {
      if (placeholders) active.push(JSON.stringify(unknownUser(e.row.id)));
    } else (e.row.is_active ? active : inactive).push(userJson(e, viewer, present, profiles));
  }
  return { active: new JsonText(`[${active.join(',')}]`), inactive: new JsonText(`[${inactive.join(',')}]`) };
}

export const realmUserState: StateFetcher = {
  types: ['realm_user'],
  async fetch(ctx) {
    const { app, tx, realm, user, opts } = ctx;
    const profiles = await realmProfileData(tx, realm.id);
    // Each user's JSON text comes from a cache keyed by the row's content (user-json.ts): an
    // organization of 10,000 people is presented and serialized once, not on every register.
    const users = await cachedUsers(app.store, tx, realm.id, profiles);
    const present: PresentOptions = { clientGravatar: opts.clientGravatar, avatarOptional: opts.capabilities.user_avatar_url_field_optional === true };
    const access = user ? await accessibleUserIds(tx, realm, user) : null;
    const lists = access ? restrictedLists(users, user, access, opts.capabilities.user_list_incomplete !== true, present, profiles) : sharedLists(users, user, present, profiles, app.store.dialect === 'sqlite');
    const out: Record<string, unknown> = {
      realm_users: lists.active,
      realm_non_active_users: lists.inactive,
      cross_realm_bots: [],
    };
    if (user) {
      const avatar = avatarInfo(user);
      Object.assign(out, {
        avatar_source: user.avatar_source,
        avatar_url: avatarUrl(avatar, { clientGravatar: false }),
        avatar_url_medium: avatarUrl(avatar, { clientGravatar: false, medium: true }),
        can_create_streams: user.role !== Role.GUEST,
        can_create_public_streams: user.role !== Role.GUEST,
        can_create_private_streams: user.role !== Role.GUEST,
        can_create_web_public_streams: user.role === Role.OWNER,
        can_subscribe_other_users: user.role !== Role.GUEST,
        can_invite_others_to_realm: user.role !== Role.GUEST,
        is_admin: user.role <= Role.ADMINISTRATOR,
        is_owner: user.role === Role.OWNER,
        is_moderator: user.role === Role.MODERATOR,
        is_guest: user.role === Role.GUEST,
        user_id: user.id,
        email: user.email,
        delivery_email: user.delivery_email,
        full_name: user.full_name,
      });
    }
    return out;
  },
};
