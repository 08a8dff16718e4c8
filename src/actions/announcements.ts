// The notification bot's announcements in the channels the organization chose: new members
// (signup_announcements_stream_id, topic "signups") and new public channels created with `announce`
// (new_stream_announcements_stream_id, topic "new channels"), as the original posts them.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { realmSettings } from '../lib/realm-settings.js';
import { streamById } from '../lib/messages/access.js';
import { doSendMessage } from './messages-send.js';
import { notificationBot } from './system-bots.js';

/** Posts `content` to the channel a setting names, if it names an unarchived one; a failure is logged, never thrown. */
async function announce(app: AppContext, realm: Realm, setting: string, topic: string, content: string): Promise<void> {
  const channelId = Number(realmSettings(realm)[setting] ?? -1);
  if (channelId <= 0) return;
  try {
    const channel = await streamById(app.store.db, realm.id, channelId);
    if (!channel || channel.is_archived) return;
    const bot = await notificationBot(app, realm);
    // Internal: the bot posts whatever the channel's posting permissions, as the original's does.
    await doSendMessage(app, realm, bot, { kind: 'stream', stream: channel.id, topic, content, readBySender: true, clientName: 'Internal', internal: true });
  } catch (err) {
    app.log.error({ err, setting }, 'announcement failed');
  }
}

/** A person joined (not bots): "@_**Name|id** joined this organization." */
export async function announceSignup(app: AppContext, realm: Realm, user: User): Promise<void> {
  if (user.is_bot) return;
  await announce(app, realm, 'signup_announcements_stream_id', 'signups', `@_**${user.full_name}|${user.id}** joined this organization.`);
}

/** Channels created with `announce`: only those everyone may find (public and web-public ones). */
export async function announceNewChannels(app: AppContext, realm: Realm, creator: User, channels: { name: string; invite_only: number }[]): Promise<void> {
  for (const c of channels) {
    if (c.invite_only) continue;
    await announce(app, realm, 'new_stream_announcements_stream_id', 'new channels', `@_**${creator.full_name}|${creator.id}** created a new channel #**${c.name}**.`);
  }
}

/** POST /channels/create with `announce`: the channel as created. */
export async function announceNewChannel(app: AppContext, realm: Realm, creator: User, channelId: number): Promise<void> {
  const channel = await streamById(app.store.db, realm.id, channelId);
  if (channel) await announceNewChannels(app, realm, creator, [channel]);
}
