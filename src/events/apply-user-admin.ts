// Applying user-administration events: deactivation and reactivation, own role flags, profile fields.
// Pure: no store, no lib.
import { ORDER, type ApplyContext, type Event, type State } from './apply-util.js';

/**
 * realm_user updates that need more than copying fields; returns true when the event was fully
 * applied here (otherwise the generic update copies the person's fields).
 */
export function applyRealmUserAdmin(state: State, e: Event, ctx: ApplyContext): boolean {
  if (e.op !== 'update') return false;
  const p = e.person;
  if (p.role !== undefined) {
    if (p.user_id === ctx.userId) applyOwnRole(state, p.role);
    // User objects carry the flags derived from the role; the event carries only the role.
    for (const u of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
      if (u.user_id === p.user_id) Object.assign(u, { is_admin: p.role <= 200, is_owner: p.role === 100, is_guest: p.role === 600 });
    }
  }
  if (p.custom_profile_field !== undefined) {
    for (const u of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
      if (u.user_id !== p.user_id || !u.profile_data) continue;
      const f = p.custom_profile_field;
      if (f.value === null) delete u.profile_data[String(f.id)];
      else u.profile_data[String(f.id)] = f.rendered_value !== undefined ? { value: f.value, rendered_value: f.rendered_value } : { value: f.value };
    }
    return true;
  }
  if (p.is_active !== undefined && state.realm_users) {
    const all = [...state.realm_users, ...(state.realm_non_active_users ?? [])];
    const u = all.find((x: any) => x.user_id === p.user_id);
    if (u) {
      u.is_active = p.is_active;
      if (p.is_deleted) u.is_deleted = true;
      state.realm_users = all.filter((x: any) => x.is_active).sort(ORDER.users);
      if (state.realm_non_active_users) state.realm_non_active_users = all.filter((x: any) => !x.is_active).sort(ORDER.users);
    }
  }
  // Group data lists active users only: clients drop a deactivated user from it.
  if (p.is_active === false && state.realm_user_groups) {
    for (const g of state.realm_user_groups) g.members = g.members.filter((id: number) => id !== p.user_id);
  }
  return p.is_active !== undefined;
}

/** The register's top-level flags derived from the user's own role (as src/lib/state/users.ts). */
function applyOwnRole(state: State, role: number): void {
  if (!('is_admin' in state)) return;
  Object.assign(state, {
    can_create_streams: role !== 600,
    can_create_public_streams: role !== 600,
    can_create_private_streams: role !== 600,
    can_create_web_public_streams: role === 100,
    can_subscribe_other_users: role !== 600,
    can_invite_others_to_realm: role !== 600,
    is_admin: role <= 200,
    is_owner: role === 100,
    is_moderator: role === 300,
    is_guest: role === 600,
  });
}

export function applyCustomProfileFields(state: State, e: Event): void {
  if (state.custom_profile_fields) state.custom_profile_fields = e.fields;
  // A deleted field's values go with it.
  const ids = new Set((e.fields as { id: number }[]).map((f) => String(f.id)));
  for (const u of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
    if (!u.profile_data) continue;
    for (const k of Object.keys(u.profile_data)) if (!ids.has(k)) delete u.profile_data[k];
  }
}
