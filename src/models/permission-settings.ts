// What clients may set each group-permission setting to (register's server_supported_permission_settings),
// from the tables the settings are checked against; and the deprecated policy numbers derived from four of them.

export interface GroupPermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

interface Limits {
  forbidden?: readonly string[];
  only?: readonly string[];
}

/** One setting's metadata; "creator" defaults are the original's "group_creator". */
export function permissionSetting(defaultGroup: string, limits: Limits, forSystemGroups: string | null = null): GroupPermissionSetting {
  const only = limits.only ? [...limits.only] : [];
  const allowed = (g: string) => (limits.only ? limits.only.includes(g) : !(limits.forbidden ?? []).includes(g));
  return {
    require_system_group: limits.only !== undefined,
    allow_internet_group: false,
    allow_nobody_group: allowed('role:nobody'),
    allow_everyone_group: allowed('role:everyone'),
    default_group_name: defaultGroup === 'creator' ? 'group_creator' : defaultGroup,
    default_for_system_groups: forSystemGroups,
    allowed_system_groups: only,
  };
}

/**
 * The deprecated *_policy register fields, each "a superset of the users who have permission": the
 * policy whose system group the setting names, else the broadest policy of the list.
 */
export const DEPRECATED_POLICIES: Record<string, { setting: string; byGroup: Record<string, number>; broadest: number }> = {
  create_public_stream_policy: { setting: 'can_create_public_channel_group', byGroup: { 'role:members': 1, 'role:administrators': 2, 'role:fullmembers': 3, 'role:moderators': 4 }, broadest: 1 },
  create_private_stream_policy: { setting: 'can_create_private_channel_group', byGroup: { 'role:members': 1, 'role:administrators': 2, 'role:fullmembers': 3, 'role:moderators': 4 }, broadest: 1 },
  create_web_public_stream_policy: { setting: 'can_create_web_public_channel_group', byGroup: { 'role:administrators': 2, 'role:moderators': 4, 'role:nobody': 6, 'role:owners': 7 }, broadest: 4 },
  wildcard_mention_policy: {
    setting: 'can_mention_many_users_group',
    byGroup: { 'role:everyone': 1, 'role:members': 2, 'role:fullmembers': 3, 'role:administrators': 5, 'role:nobody': 6, 'role:moderators': 7 },
    broadest: 1,
  },
};

/** The policy number for a setting whose group is `groupName` (null for a custom or anonymous group). */
export function deprecatedPolicyValue(policy: string, groupName: string | null | undefined): number {
  const p = DEPRECATED_POLICIES[policy]!;
  return (groupName ? p.byGroup[groupName] : undefined) ?? p.broadest;
}

/** GIF ratings an administrator may choose (gif_rating_policy), by the original's keys. */
export const GIF_RATING_OPTIONS: Record<string, { name: string; id: number }> = {
  disabled: { name: 'GIF picker disabled', id: 0 },
  y: { name: 'GIFs rated Y (very young audience)', id: 1 },
  g: { name: 'GIFs rated G (general audience)', id: 2 },
  pg: { name: 'GIFs rated PG (parental guidance)', id: 3 },
  'pg-13': { name: 'GIFs rated PG-13 (parental guidance, under 13)', id: 4 },
  r: { name: 'GIFs rated R (restricted)', id: 5 },
};
