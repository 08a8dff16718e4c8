// Secret tokens in notification emails: per-conversation reply addresses and per-kind unsubscribe links.
import { randomBytes } from 'node:crypto';
import type { Tx } from '../../store/store.js';
import type { Realm } from '../../store/schema.js';
import { realmHostName } from '../users.js';
import { realmUrl } from '../state/realm.js';

/** Kinds of email a link can turn off, each with the personal setting it turns off. */
export const UNSUBSCRIBE_KINDS = {
  missed_messages: { setting: 'enable_offline_email_notifications', label: 'Unsubscribe from direct message and mention emails' },
  channel: { setting: 'enable_stream_email_notifications', label: 'Unsubscribe from channel message emails' },
  followed_topics: { setting: 'enable_followed_topic_email_notifications', label: 'Unsubscribe from followed topic emails' },
  digest: { setting: 'enable_digest_emails', label: 'Unsubscribe from digest emails' },
} as const;
export type UnsubscribeKind = keyof typeof UNSUBSCRIBE_KINDS;

/** A reply address is honoured this long after its email (the original's missed-message addresses last five days). */
export const REPLY_ADDRESS_VALIDITY_SECS = 5 * 24 * 3600;

/** Local part of a reply address: "mm" and 128 random bits in hex (channel addresses carry a dot, these none). */
export const REPLY_LOCAL_PART = /^mm([0-9a-f]{32})$/;

export const realmBaseUrl = (externalUrl: string, realm: Pick<Realm, 'string_id'>): string => realmUrl(externalUrl, realm.string_id);

/** Domain of the gateway's addresses (channel and reply): PARLEY_EMAIL_GATEWAY_DOMAIN, else the organization's host. */
export const gatewayDomain = (configured: string, externalUrl: string, realm: Pick<Realm, 'string_id'>): string => configured || realmHostName(externalUrl, realm);

export async function newReplyAddress(tx: Tx, realmId: number, userId: number, messageId: number, now: number, domain: string): Promise<string> {
  const token = randomBytes(16).toString('hex');
  await tx.insertInto('email_reply_addresses').values({ token, realm_id: realmId, user_id: userId, message_id: messageId, created_at: now }).execute();
  return `mm${token}@${domain}`;
}

/** The user's unsubscribe token for a kind, made on first use. */
export async function unsubscribeToken(tx: Tx, userId: number, kind: UnsubscribeKind): Promise<string> {
  await tx
    .insertInto('email_unsubscribe_tokens')
    .values({ token: randomBytes(16).toString('hex'), user_id: userId, kind })
    .onConflict((oc) => oc.columns(['user_id', 'kind']).doNothing())
    .execute();
  const row = await tx.selectFrom('email_unsubscribe_tokens').select('token').where('user_id', '=', userId).where('kind', '=', kind).executeTakeFirstOrThrow();
  return row.token;
}

export const unsubscribeUrl = (base: string, kind: UnsubscribeKind, token: string): string => `${base}/accounts/unsubscribe/${kind}/${token}`;
