// The email gateway's decisions: whom an address posts as and where (checked at RCPT time), and the post itself.
import type { AppContext } from '../context.js';
import type { Realm, Stream, User } from '../store/schema.js';
import type { UploadedFile } from '../core/results.js';
import { ApiError } from '../core/api-error.js';
import { checkCanSendToStream } from '../lib/messages/access.js';
import { accessMessage } from '../lib/messages/access.js';
import { dmParticipantsByRecipient } from '../lib/messages/recipients.js';
import { parseGatewayAddress } from '../lib/mail/gateway-address.js';
import { gatewayDomain, REPLY_ADDRESS_VALIDITY_SECS } from '../lib/mail/tokens.js';
import { inboundMarkdown } from '../lib/mail/inbound-body.js';
import { doSendMessage } from './messages-send.js';
import { doUploadFile } from './uploads.js';

/** Where a recipient address posts: a channel as the address's sender, or a reply as the notified user. */
export type GatewayTarget =
  | { kind: 'channel'; realm: Realm; sender: User; stream: Stream }
  | { kind: 'reply'; realm: Realm; sender: User; messageId: number; stream: Stream | null; topic: string; dmTo: number[] };

export class Refusal extends Error {}

/** Resolves a recipient, or throws Refusal with the reason logged (and, in short, told to the sending server). */
export async function resolveGatewayRecipient(app: AppContext, address: string): Promise<GatewayTarget> {
  const parsed = parseGatewayAddress(address);
  if (!parsed) throw new Refusal('not a gateway address');
  const db = app.store.db;
  const realmOf = async (realmId: number) => {
    const realm = await db.selectFrom('realms').selectAll().where('id', '=', realmId).executeTakeFirst();
    if (!realm || realm.deactivated) throw new Refusal('organization deactivated');
    if (gatewayDomain(app.config.emailGatewayDomain, app.config.externalUrl, realm).toLowerCase() !== parsed.domain) throw new Refusal('wrong domain for this address');
    return realm;
  };
  const activeUser = async (id: number, what: string) => {
    const u = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!u?.is_active) throw new Refusal(`${what} deactivated`);
    return u;
  };
  if (parsed.kind === 'channel') {
    const row = await db.selectFrom('channel_email_addresses').selectAll().where('email_token', '=', parsed.token).executeTakeFirst();
    if (!row) throw new Refusal('unknown channel address');
    const realm = await realmOf(row.realm_id);
    const stream = await db.selectFrom('streams').selectAll().where('id', '=', row.stream_id).executeTakeFirst();
    if (!stream || stream.is_archived) throw new Refusal('channel archived');
    // The address stops working when the person who asked for it leaves or loses the right to post.
    const creator = await activeUser(row.creator_id, 'address creator');
    const sender = await activeUser(row.sender_id, 'sender');
    try {
      await checkCanSendToStream(db, creator, stream);
      await checkCanSendToStream(db, sender, stream);
    } catch (err) {
      if (err instanceof ApiError) throw new Refusal(`may not post in the channel: ${err.message}`);
      throw err;
    }
    return { kind: 'channel', realm, sender, stream };
  }
  const row = await db.selectFrom('email_reply_addresses').selectAll().where('token', '=', parsed.token).executeTakeFirst();
  if (!row) throw new Refusal('unknown reply address');
  if (row.created_at + REPLY_ADDRESS_VALIDITY_SECS < app.clock.now()) throw new Refusal('reply address expired');
  const realm = await realmOf(row.realm_id);
  const sender = await activeUser(row.user_id, 'user');
  try {
    const { message, stream } = await app.store.read((tx) => accessMessage(tx, sender, row.message_id));
    if (stream) return { kind: 'reply', realm, sender, messageId: message.id, stream, topic: message.topic, dmTo: [] };
    const ids = (await dmParticipantsByRecipient(db, [message.recipient_id])).get(message.recipient_id) ?? [];
    return { kind: 'reply', realm, sender, messageId: message.id, stream: null, topic: '', dmTo: ids };
  } catch (err) {
    if (err instanceof ApiError) throw new Refusal('message no longer accessible');
    throw err;
  }
}

export interface InboundMail {
  subject: string;
  text?: string;
  html?: string | false;
  attachments: { filename?: string; contentType: string; content: Buffer; size: number }[];
}

/** Topics are at most 60 characters in the API; a mail without a subject goes to "(no subject)". */
const MAX_TOPIC_CHARS = 60;

function topicFromSubject(subject: string): string {
  const clean = subject.replace(/[\r\n\t]+/g, ' ').replace(/\u0000/g, '').trim();
  const chars = [...(clean || '(no subject)')];
  return chars.length > MAX_TOPIC_CHARS ? chars.slice(0, MAX_TOPIC_CHARS - 1).join('') + '…' : chars.join('');
}

/** Posts one mail to one resolved target; returns the new message's ID. */
export async function doPostInboundMail(app: AppContext, target: GatewayTarget, mail: InboundMail): Promise<number> {
  let body = inboundMarkdown({ text: mail.text, html: mail.html }, target.kind === 'reply');
  const links: string[] = [];
  for (const a of mail.attachments) {
    const file: UploadedFile = { field: 'file', filename: a.filename || 'attachment', mimeType: a.contentType, size: a.size, path: '', read: async () => a.content };
    const stored = await doUploadFile(app, target.realm, target.sender, file);
    links.push(`[${stored.fileName.replace(/[[\]]/g, '')}](/user_uploads/${stored.pathId})`);
  }
  if (links.length) body = `${body}\n\n${links.join('\n')}`.trim();
  if (!body) body = '(empty message)';
  const input =
    target.kind === 'channel'
      ? { kind: 'stream' as const, stream: target.stream.id, topic: topicFromSubject(mail.subject) }
      : target.stream
        ? { kind: 'stream' as const, stream: target.stream.id, topic: target.topic }
        : { kind: 'private' as const, dmTo: target.dmTo.length > 1 ? target.dmTo.filter((id) => id !== target.sender.id) : target.dmTo };
  const { id } = await doSendMessage(app, target.realm, target.sender, { ...input, content: body, readBySender: true, clientName: 'Email gateway' });
  return id;
}
