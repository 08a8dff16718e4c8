// Table types of migration 018: bot storage, user statuses, muted users, outgoing-webhook services.
import type { Generated, Selectable } from 'kysely';

export interface BotStorageTable {
  bot_id: number;
  key: string;
  value: string;
}

export interface UserStatusTable {
  user_id: number;
  realm_id: number;
  status_text: Generated<string>;
  emoji_name: Generated<string>;
  emoji_code: Generated<string>;
  reaction_type: Generated<string>;
  timestamp: number;
}

export interface MutedUserTable {
  user_id: number;
  muted_user_id: number;
  realm_id: number;
  date_muted: number;
}

export interface BotServiceTable {
  bot_id: number;
  base_url: string;
  /** 1 the original's generic outgoing webhook payload, 2 Slack's compatible form. */
  interface: Generated<number>;
  token: string;
}

export type UserStatusRow = Selectable<UserStatusTable>;
export type BotServiceRow = Selectable<BotServiceTable>;
