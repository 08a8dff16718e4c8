// The system user groups every organization has, and how roles map onto them.
import { Role } from './roles.js';

export const SYSTEM_GROUPS = [
  'role:internet',
  'role:everyone',
  'role:members',
  'role:fullmembers',
  'role:moderators',
  'role:administrators',
  'role:owners',
  'role:nobody',
] as const;
export type SystemGroupName = (typeof SYSTEM_GROUPS)[number];

export const SYSTEM_GROUP_DESCRIPTIONS: Record<SystemGroupName, string> = {
  'role:internet': 'Everyone on the Internet',
  'role:everyone': 'Everyone including guests',
  'role:members': 'Everyone except guests',
  'role:fullmembers': 'Members of this organization, not including new accounts and guests',
  'role:moderators': 'Moderators of this organization, including administrators',
  'role:administrators': 'Administrators of this organization, including owners',
  'role:owners': 'Owners of this organization',
  'role:nobody': 'Nobody',
};

/** Each system group contains the next stricter one as its only subgroup. */
export const SYSTEM_SUBGROUP: Partial<Record<SystemGroupName, SystemGroupName>> = {
  'role:internet': 'role:everyone',
  'role:everyone': 'role:members',
  'role:members': 'role:fullmembers',
  'role:fullmembers': 'role:moderators',
  'role:moderators': 'role:administrators',
  'role:administrators': 'role:owners',
};

/** The system groups a user of this role is a direct member of. */
export function directSystemGroupsForRole(role: number): SystemGroupName[] {
  switch (role) {
    case Role.OWNER:
      return ['role:owners'];
    case Role.ADMINISTRATOR:
      return ['role:administrators'];
    case Role.MODERATOR:
      return ['role:moderators'];
    case Role.MEMBER:
      // With no waiting period every member is a full member; the members group lists them too.
      return ['role:members', 'role:fullmembers'];
    default:
      return ['role:everyone'];
  }
}

/** Whether a role belongs (directly or through subgroups) to a system group. */
export function roleInSystemGroup(role: number, group: SystemGroupName): boolean {
  switch (group) {
    case 'role:internet':
    case 'role:everyone':
      return true;
    case 'role:members':
    case 'role:fullmembers':
      return role <= Role.MEMBER;
    case 'role:moderators':
      return role <= Role.MODERATOR;
    case 'role:administrators':
      return role <= Role.ADMINISTRATOR;
    case 'role:owners':
      return role === Role.OWNER;
    default:
      return false;
  }
}
