// Role codes of the API and the checks derived from them.
export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;
export type RoleCode = (typeof Role)[keyof typeof Role];
export const ROLE_CODES: readonly number[] = Object.values(Role);

export const isAdminRole = (role: number) => role <= Role.ADMINISTRATOR;
export const isModeratorOrAbove = (role: number) => role <= Role.MODERATOR;

export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;
export const BOT_TYPES: readonly number[] = Object.values(BotType);
