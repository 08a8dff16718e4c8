// The rest of an imported organization: user groups, linkifiers, custom profile fields, drafts and topic visibility.
import type { Transaction } from 'kysely';
import type { DB, Realm } from '../store/schema.js';
import { systemGroupIds } from '../lib/groups.js';
import { GROUP_PERMISSIONS, GROUP_PERMISSION_DEFAULTS } from '../lib/groups.js';
import { renderMessage, renderContextFrom } from '../lib/markdown/index.js';
import { topicKey } from '../lib/messages/topic.js';
import { insertMany } from './bulk.js';
import type { ImportBundle } from './bundle.js';
import type { ChannelRef } from './write.js';

/** Profile field types whose values are Markdown (short and long text) and carry a rendering. */
const RENDERED_FIELD_TYPES = new Set([1, 2]);

/** Returns the user groups written, name → ID (group settings name them). */
export async function writeExtras(tx: Transaction<DB>, realm: Realm, bundle: ImportBundle, userIds: Map<string, number>, channelIds: Map<string, ChannelRef>, now: number): Promise<Map<string, number>> {
  const groupIds = new Map<string, number>();
  const sys = await systemGroupIds(tx, realm.id);
  // Imported groups have no creator: what a creator would hold, administrators hold.
  const permissions: Record<string, number> = {};
  for (const k of GROUP_PERMISSIONS) {
    const def = GROUP_PERMISSION_DEFAULTS[k];
    permissions[k] = def === 'creator' ? sys['role:administrators'] : sys[def as keyof typeof sys];
  }
  for (const g of bundle.userGroups) {
    const row = await tx
      .insertInto('user_groups')
      .values({ realm_id: realm.id, name: g.name, description: g.description, is_system_group: 0, deactivated: 0, date_created: now, creator_id: null, permissions: JSON.stringify(permissions) })
      .returning('id')
      .executeTakeFirstOrThrow();
    groupIds.set(g.name, row.id);
    await insertMany(
      tx,
      'user_group_members',
      [...new Set(g.memberKeys.map((k) => userIds.get(k)!))].map((user_id) => ({ group_id: row.id, user_id })),
    );
  }

  await insertMany(
    tx,
    'realm_linkifiers',
    bundle.linkifiers.map((l, i) => ({ realm_id: realm.id, pattern: l.pattern, url_template: l.urlTemplate, example_input: null, reverse_template: null, alternative_url_templates: '[]', sort_order: i + 1 })),
  );

  const plain = renderContextFrom();
  for (const [order, f] of bundle.profileFields.entries()) {
    const row = await tx
      .insertInto('custom_profile_fields')
      .values({ realm_id: realm.id, type: f.type, name: f.name, hint: f.hint, field_data: f.fieldData, field_order: order, display_in_profile_summary: 0, required: 0, editable_by_user: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await insertMany(
      tx,
      'custom_profile_field_values',
      f.values.map((v) => ({ user_id: userIds.get(v.userKey)!, field_id: row.id, value: v.value, rendered_value: RENDERED_FIELD_TYPES.has(f.type) ? renderMessage(v.value, plain).html : null })),
    );
  }

  await insertMany(
    tx,
    'drafts',
    bundle.drafts.map((d) => ({
      user_id: userIds.get(d.userKey)!,
      type: d.type,
      to_ids: JSON.stringify(d.type === 'stream' ? (d.channelKey && channelIds.has(d.channelKey) ? [channelIds.get(d.channelKey)!.id] : []) : (d.dmUserKeys ?? []).map((k) => userIds.get(k)).filter((id) => id !== undefined)),
      topic: d.topic,
      content: d.content,
      last_edit_time: d.lastEditTime,
    })),
  );

  await insertMany(
    tx,
    'user_topics',
    bundle.topicPolicies.map((t) => ({ user_id: userIds.get(t.userKey)!, stream_id: channelIds.get(t.channelKey)!.id, topic: t.topic, topic_key: topicKey(t.topic), visibility_policy: t.visibilityPolicy, last_updated: t.lastUpdated })),
  );
  return groupIds;
}
