// A channel's email-gateway address: one secret token per (channel, caller, sender), created on first request.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { accessStreamById } from '../lib/streams/access.js';
import { checkCanSendToStream } from '../lib/messages/access.js';
import { realmHostName } from '../lib/users.js';
import { systemBot } from './system-bots.js';

/** The address's readable part: the channel name reduced to what every mail system accepts. */
function channelSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 30)
    .replace(/-+$/, '');
  return slug || 'channel';
}

/** GET /streams/{id}/email_address: only users who may post there; sender is the caller, the gateway bot or a bot they own. */
export async function doGetChannelEmail(app: AppContext, realm: Realm, user: User, streamId: number, senderId: number | undefined): Promise<string> {
  const stream = await app.store.read(async (tx) => {
    const { stream } = await accessStreamById(tx, user, streamId);
    if (stream.is_archived) throw badRequest('Invalid channel ID');
    await checkCanSendToStream(tx, user, stream);
    return stream;
  });
  const gateway = await systemBot(app, realm, 'email-gateway');
  let sender: Pick<User, 'id'> = gateway;
  if (senderId !== undefined && senderId !== gateway.id) {
    const ownBot = senderId === user.id ? null : await app.store.db.selectFrom('users').select(['id']).where('id', '=', senderId).where('realm_id', '=', realm.id).where('is_bot', '=', 1).where('is_active', '=', 1).where('bot_owner_id', '=', user.id).executeTakeFirst();
    if (senderId !== user.id && !ownBot) throw badRequest('Invalid sender_id');
    sender = { id: senderId };
  }
  const { result: token } = await app.store.write(async (tx) => {
    const values = { realm_id: realm.id, stream_id: stream.id, creator_id: user.id, sender_id: sender.id, email_token: randomBytes(16).toString('hex'), date_created: app.clock.now() };
    // A concurrent first request may insert first: keep whichever row won.
    await tx.insertInto('channel_email_addresses').values(values).onConflict((oc) => oc.columns(['stream_id', 'creator_id', 'sender_id']).doNothing()).execute();
    const row = await tx.selectFrom('channel_email_addresses').select('email_token').where('stream_id', '=', stream.id).where('creator_id', '=', user.id).where('sender_id', '=', sender.id).executeTakeFirstOrThrow();
    return row.email_token;
  });
  const domain = app.config.emailGatewayDomain || realmHostName(app.config.externalUrl, realm);
  return `${channelSlug(stream.name)}.${token}@${domain}`;
}
