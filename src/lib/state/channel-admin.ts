// Register state of organization administration: default channels, channel folders, allowed domains, code playgrounds, new users' setting defaults.
import type { StateFetcher } from './context.js';
import { Role } from '../../models/roles.js';
import { defaultStreamIds } from '../streams/administer.js';
import { effectiveDefaults, presentDefaults, realmUserDefaultOverrides } from '../realm-user-defaults.js';
import { realmDomainList } from '../realm-domains.js';
import { realmPlaygroundList } from '../realm-playgrounds.js';
import { MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH, presentFolder, realmFolders } from '../channel-folders.js';

export const defaultStreamsState: StateFetcher = {
  types: ['default_streams'],
  async fetch({ tx, realm, user }) {
    // Guests (and visitors) cannot reach every default channel: as the original, they are told there are none.
    return { realm_default_streams: user && user.role !== Role.GUEST ? await defaultStreamIds(tx, realm.id) : [] };
  },
};

export const channelFoldersState: StateFetcher = {
  types: ['channel_folders', 'channel_folder'],
  async fetch({ tx, realm, user }) {
    const folders = await realmFolders(tx, realm.id);
    if (user) return { channel_folders: folders.map(presentFolder) };
    // Spectators see only folders holding a web-public channel.
    const rows = await tx.selectFrom('streams').select('folder_id').where('realm_id', '=', realm.id).where('is_web_public', '=', 1).where('is_archived', '=', 0).execute();
    const used = new Set(rows.map((r) => r.folder_id));
    return { channel_folders: folders.filter((f) => used.has(f.id)).map(presentFolder) };
  },
};

/** The folder limits the realm state names. */
export const channelFolderLimitsState: StateFetcher = {
  types: ['realm'],
  async fetch() {
    return { max_channel_folder_name_length: MAX_FOLDER_NAME_LENGTH, max_channel_folder_description_length: MAX_FOLDER_DESCRIPTION_LENGTH };
  },
};


export const realmDomainsState: StateFetcher = {
  types: ['realm_domains'],
  async fetch({ tx, realm }) {
    return { realm_domains: await realmDomainList(tx, realm.id) };
  },
};

export const realmPlaygroundsState: StateFetcher = {
  types: ['realm_playgrounds'],
  async fetch({ tx, realm }) {
    return { realm_playgrounds: await realmPlaygroundList(tx, realm.id) };
  },
};


export const realmUserDefaultsState: StateFetcher = {
  types: ['realm_user_settings_defaults'],
  async fetch({ tx, realm }) {
    return { realm_user_settings_defaults: presentDefaults(effectiveDefaults(realm, await realmUserDefaultOverrides(tx, realm.id))) };
  },
};

export const channelAdminStates: StateFetcher[] = [defaultStreamsState, channelFoldersState, channelFolderLimitsState, realmDomainsState, realmPlaygroundsState, realmUserDefaultsState];
