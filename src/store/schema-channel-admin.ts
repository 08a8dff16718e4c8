// Table types of migration 017: channel folders, allowed email domains, code playgrounds, new users' setting defaults.
import type { Generated, Selectable } from 'kysely';

export interface ChannelFolderTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  /** Lower-cased name: folder names are unique case-insensitively within an organization. */
  name_key: string;
  description: string;
  rendered_description: string;
  /** Position in the organization's list (0 first); PATCH /channel_folders rewrites them all. */
  order: number;
  date_created: number;
  creator_id: number | null;
  is_archived: number;
}

export interface RealmDomainTable {
  id: Generated<number>;
  realm_id: number;
  /** Lower-cased. */
  domain: string;
  allow_subdomains: number;
}

export interface RealmPlaygroundTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** One row per organization that changed a default: JSON object of the settings that differ. */
export interface RealmUserDefaultsTable {
  realm_id: number;
  settings: string;
}

export interface ChannelAdminTables {
  channel_folders: ChannelFolderTable;
  realm_domains: RealmDomainTable;
  realm_playgrounds: RealmPlaygroundTable;
  realm_user_defaults: RealmUserDefaultsTable;
}

export type ChannelFolder = Selectable<ChannelFolderTable>;
