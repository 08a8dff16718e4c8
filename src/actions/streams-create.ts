// Creating channels on behalf of a user (from POST /users/me/subscriptions): permission checks,
// settings and permission groups. The caller's transaction also subscribes and sends the events.
import type { Transaction } from 'kysely';
import type { DB, Realm, Stream, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import type { GroupSettingValue } from '../lib/groups.js';
import { realmSettings } from '../lib/realm-settings.js';
import { insertStream } from '../lib/streams-create.js';
import { storeGroupSetting } from '../lib/streams/permissions.js';
import { hasRealmPermission, systemGroupIds } from '../lib/groups.js';

export const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;

/** Settings requested for channels this request creates (ignored for channels that exist). */
export interface NewStreamSettings {
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean | undefined;
  /** undefined: not requested (organization default); null: realm default; -1: unlimited. */
  messageRetentionDays: number | null | undefined;
  topicsPolicy: string | undefined;
  groupSettings: Record<string, GroupSettingValue>;
  isDefaultStream: boolean;
}

/** Checks that the user may create channels with these settings; throws the original's errors. */
export async function checkCanCreateStreams(tx: Transaction<DB>, realm: Realm, user: User, s: NewStreamSettings): Promise<void> {
  if (s.isWebPublic) {
    if (realmSettings(realm).enable_spectator_access !== true) throw badRequest('Web-public channels are not enabled.');
    if (!(await hasRealmPermission(tx, user, realm, 'can_create_web_public_channel_group'))) throw badRequest('Insufficient permission');
  } else if (s.inviteOnly) {
    if (!(await hasRealmPermission(tx, user, realm, 'can_create_private_channel_group'))) throw badRequest('Insufficient permission');
  } else if (!(await hasRealmPermission(tx, user, realm, 'can_create_public_channel_group'))) {
    throw badRequest('Insufficient permission');
  }
  if (s.messageRetentionDays !== undefined && user.role !== Role.OWNER) throw badRequest('Must be an organization owner');
  if (s.topicsPolicy !== undefined && s.topicsPolicy !== 'inherit' && !(await hasRealmPermission(tx, user, realm, 'can_set_topics_policy_group'))) {
    throw badRequest('Insufficient permission');
  }
  if (s.isDefaultStream) {
    if (user.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
    if (s.inviteOnly) throw badRequest('A default channel cannot be private.');
  }
}

/** Inserts one new channel with the requested settings and permission groups. */
export async function createStream(
  tx: Transaction<DB>,
  realm: Realm,
  user: User,
  spec: { name: string; description: string; renderedDescription: string },
  s: NewStreamSettings,
  now: number,
): Promise<Stream> {
  const permissions: Record<string, number> = {};
  for (const [setting, value] of Object.entries(s.groupSettings)) {
    permissions[setting] = await storeGroupSetting(tx, realm.id, setting, value, { creatorId: user.id, now });
  }
  // Public channels always have public history; private ones default to protected history.
  const historyPublic = s.inviteOnly ? (s.historyPublicToSubscribers ?? false) : true;
  // The reference: a private channel with protected history lets everyone create topics (as PATCH checks).
  if (s.inviteOnly && !s.isWebPublic && !historyPublic && permissions.can_create_topic_group !== undefined) {
    if (permissions.can_create_topic_group !== (await systemGroupIds(tx, realm.id))['role:everyone']) throw badRequest('Invalid parameters');
  }
  const stream = await insertStream(tx, {
    realmId: realm.id,
    name: spec.name,
    description: spec.description,
    renderedDescription: spec.renderedDescription,
    inviteOnly: s.inviteOnly && !s.isWebPublic,
    historyPublicToSubscribers: historyPublic,
    isWebPublic: s.isWebPublic,
    creatorId: user.id,
    messageRetentionDays: s.messageRetentionDays ?? null,
    topicsPolicy: s.topicsPolicy ?? 'inherit',
    permissions,
    now,
  });
  if (s.isDefaultStream) await tx.insertInto('default_streams').values({ realm_id: realm.id, stream_id: stream.id }).execute();
  return stream;
}
