// Missed-message emails: claims each user's due batch across nodes, checks it again, records it, sends it, completes it.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { User } from '../store/schema.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import type { Tx } from '../store/store.js';
import { FLAG_BITS } from '../models/flags.js';
import { effectiveUserSettings, type UserSettingsValues } from '../models/user-settings.js';
import { OFFLINE_THRESHOLD_SECS } from '../lib/presence.js';
import { VisibilityPolicy } from '../lib/topics/visibility.js';
import { dmParticipantsByRecipient } from '../lib/messages/recipients.js';
import { composeMissedEmail, type MissedConversation } from '../lib/mail/missed-message.js';
import type { MailMessage } from '../lib/mail/outbox.js';
import { hasLiveQueue } from '../lib/mail/live-queues.js';
import type { Trigger } from '../lib/mail/pending.js';
import { gatewayDomain, newReplyAddress, realmBaseUrl, UNSUBSCRIBE_KINDS, unsubscribeToken, unsubscribeUrl, type UnsubscribeKind } from '../lib/mail/tokens.js';

/** How long a node owns a claimed batch before another may retry it (a failed send is retried then). */
export const EMAIL_CLAIM_SECS = 300;

interface PendingRow {
  id: number;
  user_id: number;
  message_id: number;
  trigger: string;
  created_at: number;
}

const unclaimed = (now: number) => (eb: any) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);

/**
 * One pass. First, batches a node composed and did not finish (it died, or SMTP failed) whose lease
 * has run out are taken over, one node each, and sent again as composed. Then every user whose
 * oldest unclaimed pending row is older than their batching period gets their rows claimed (one
 * conditional UPDATE, so concurrent nodes split users, never rows) and checked; a batch with
 * something left to say is composed and recorded (email_batches, with its Message-ID) before the
 * SMTP send, and the record and its rows are deleted in one transaction after it.
 * Returns how many emails went out.
 */
export async function deliverDueEmails(app: AppContext, limit = 50): Promise<number> {
  const now = app.clock.now();
  const db = app.store.db;
  let sent = await retryAbandonedBatches(app, now, limit);
  const heads = await db
    .selectFrom('email_pending')
    .select((eb) => ['user_id', eb.fn.min<number>('created_at').as('first')])
    .where('batch_id', 'is', null)
    .where(unclaimed(now))
    .groupBy('user_id')
    .orderBy('first')
    .limit(limit)
    .execute();
  for (const head of heads) {
    const user = await db.selectFrom('users').selectAll().where('id', '=', head.user_id).executeTakeFirst();
    const period = user ? batchingPeriod(effectiveUserSettings(user.settings)) : 0;
    // Deactivated (or gone) users' rows go at once: nothing will be sent to them.
    if (user?.is_active && Number(head.first) + period > now) continue;
    const claim = randomBytes(12).toString('hex');
    await app.store.write((tx) => tx.updateTable('email_pending').set({ claim, claimed_until: now + EMAIL_CLAIM_SECS }).where('user_id', '=', head.user_id).where('batch_id', 'is', null).where(unclaimed(now)).execute());
    const rows = await db.selectFrom('email_pending').select(['id', 'user_id', 'message_id', 'trigger', 'created_at']).where('claim', '=', claim).orderBy('message_id').execute();
    if (!rows.length) continue;
    // Another node took the due rows between the read and the claim; these newer ones wait for their own time.
    if (user?.is_active && Math.min(...rows.map((r) => r.created_at)) + period > now) {
      await app.store.write((tx) => tx.updateTable('email_pending').set({ claim: null, claimed_until: null }).where('claim', '=', claim).execute());
      continue;
    }
    try {
      const mail = user?.is_active ? await composeBatch(app, user, rows, now) : null;
      if (!mail) {
        await app.store.write((tx) => tx.deleteFrom('email_pending').where('claim', '=', claim).execute());
        continue;
      }
      const { result: batchId } = await app.store.write(async (tx) => {
        const b = await tx
          .insertInto('email_batches')
          .values({ user_id: head.user_id, message_id_header: mail.messageId!, payload: JSON.stringify(mail), lease_until: now + EMAIL_CLAIM_SECS, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        await tx.updateTable('email_pending').set({ batch_id: b.id }).where('claim', '=', claim).execute();
        return b.id;
      });
      await app.mail.send(mail);
      await completeBatch(app, batchId);
      sent++;
    } catch (err) {
      // Left as it is: the claim or the batch's lease runs out and another pass retries (an SMTP
      // outage delays mail, it does not lose it).
      app.log.error({ err, user_id: head.user_id }, 'missed-message email failed');
    }
  }
  return sent;
}

/** The send happened: the batch and its pending rows go together, so no later pass sends it again. */
async function completeBatch(app: AppContext, batchId: number): Promise<void> {
  await app.store.write(async (tx) => {
    await tx.deleteFrom('email_pending').where('batch_id', '=', batchId).execute();
    await tx.deleteFrom('email_batches').where('id', '=', batchId).execute();
  });
}

/**
 * Batches whose lease ran out without completing: the node that composed them stopped (before, during
 * or after SMTP) or its send failed. Each is taken by one node (a conditional lease update) and sent
 * again byte for byte, under the same Message-ID, so a copy that did reach the recipient before the
 * node died is recognisable as the same message.
 */
async function retryAbandonedBatches(app: AppContext, now: number, limit: number): Promise<number> {
  const stale = await app.store.db.selectFrom('email_batches').select(['id', 'user_id']).where('lease_until', '<', now).orderBy('id').limit(limit).execute();
  let sent = 0;
  for (const b of stale) {
    const { result: took } = await app.store.write((tx) =>
      tx
        .updateTable('email_batches')
        .set((eb) => ({ lease_until: now + EMAIL_CLAIM_SECS, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', b.id)
        .where('lease_until', '<', now)
        .executeTakeFirst(),
    );
    if (Number(took.numUpdatedRows) !== 1) continue;
    try {
      const row = await app.store.db.selectFrom('email_batches').select('payload').where('id', '=', b.id).executeTakeFirst();
      const user = await app.store.db.selectFrom('users').select('is_active').where('id', '=', b.user_id).executeTakeFirst();
      if (row && user?.is_active) {
        await app.mail.send(JSON.parse(row.payload) as MailMessage);
        sent++;
      }
      await completeBatch(app, b.id);
    } catch (err) {
      app.log.error({ err, user_id: b.user_id, batch: b.id }, 'missed-message email retry failed');
    }
  }
  return sent;
}

const batchingPeriod = (s: UserSettingsValues): number => Number(s.email_notifications_batching_period_seconds ?? 120);

/** Which unsubscribe link covers a reason. */
const KIND_OF: Record<Trigger, UnsubscribeKind> = {
  private: 'missed_messages',
  mentioned: 'missed_messages',
  wildcard_mentioned: 'missed_messages',
  followed_topic: 'followed_topics',
  stream_email: 'channel',
};

/** The email of one claimed batch, with a Message-ID of its own; null when nothing in it still qualifies. */
async function composeBatch(app: AppContext, user: User, rows: PendingRow[], now: number): Promise<MailMessage | null> {
  const db = app.store.db;
  // Bots are not emailed about messages (their owners read them through the API).
  if (user.is_bot) return null;
  const realm = await db.selectFrom('realms').selectAll().where('id', '=', user.realm_id).executeTakeFirstOrThrow();
  if (realm.deactivated) return null;
  const presence = await db.selectFrom('user_presence').select('last_active_time').where('user_id', '=', user.id).executeTakeFirst();
  // Active in a client right now (a recent presence report, or a live event queue on any node): they see it there.
  if (presence?.last_active_time != null && presence.last_active_time + OFFLINE_THRESHOLD_SECS >= now) return null;
  if (await hasLiveQueue(app, user.id, now)) return null;
  const settings = effectiveUserSettings(user.settings);
  const messages = await db
    .selectFrom('messages as m')
    .innerJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', user.id))
    .innerJoin('users as s', 's.id', 'm.sender_id')
    .select(['m.id', 'm.stream_id', 'm.recipient_id', 'm.topic', 'm.topic_key', 'm.content', 'm.rendered_content', 'm.date_sent', 'm.sender_id', 's.full_name as sender_name', 'um.flags'])
    .where('m.id', 'in', rows.map((r) => r.message_id))
    .orderBy('m.id')
    .execute();
  const triggerOf = new Map(rows.map((r) => [r.message_id, r.trigger as Trigger]));
  const streamIds = [...new Set(messages.flatMap((m) => (m.stream_id === null ? [] : [m.stream_id])))];
  const subs = streamIds.length
    ? await db.selectFrom('subscriptions').select(['stream_id', 'is_muted', 'active', 'email_notifications', 'wildcard_mentions_notify', 'unread_floor']).where('user_id', '=', user.id).where('stream_id', 'in', streamIds).execute()
    : [];
  const subOf = new Map(subs.map((s) => [s.stream_id, s]));
  const policies = streamIds.length ? await db.selectFrom('user_topics').select(['stream_id', 'topic_key', 'visibility_policy']).where('user_id', '=', user.id).where('stream_id', 'in', streamIds).execute() : [];
  const policyOf = new Map(policies.map((p) => [`${p.stream_id}\n${p.topic_key}`, p.visibility_policy]));
  const streams = streamIds.length ? await db.selectFrom('streams').select(['id', 'name']).where('id', 'in', streamIds).execute() : [];
  const streamName = new Map(streams.map((s) => [s.id, s.name]));

  const kept = messages.filter((m) => {
    if (m.sender_id === user.id || m.flags & FLAG_BITS.read) return false;
    const trigger = triggerOf.get(m.id)!;
    if (m.stream_id === null) return trigger === 'private' && settings.enable_offline_email_notifications === true;
    const sub = subOf.get(m.stream_id);
    // Below the subscription's unread floor a channel row counts as read (lib/messages/unread.ts).
    if (sub && !(m.flags & FLAG_BITS.unfloored) && m.id < sub.unread_floor) return false;
    const policy = policyOf.get(`${m.stream_id}\n${m.topic_key}`) ?? VisibilityPolicy.NONE;
    if (policy === VisibilityPolicy.MUTED) return false;
    if (sub?.is_muted && policy !== VisibilityPolicy.UNMUTED && policy !== VisibilityPolicy.FOLLOWED) return false;
    const followed = policy === VisibilityPolicy.FOLLOWED;
    switch (trigger) {
      case 'mentioned':
        return settings.enable_offline_email_notifications === true;
      case 'wildcard_mentioned': {
        const wildcard = (followed && settings.enable_followed_topic_wildcard_mentions_notify === true) || (sub?.wildcard_mentions_notify ?? (settings.wildcard_mentions_notify ? 1 : 0)) === 1;
        return settings.enable_offline_email_notifications === true && wildcard;
      }
      case 'followed_topic':
        return followed && settings.enable_followed_topic_email_notifications === true;
      case 'stream_email':
        return !!sub?.active && (sub.email_notifications ?? (settings.enable_stream_email_notifications ? 1 : 0)) === 1;
      default:
        return false;
    }
  });
  if (!kept.length) return null;

  const base = realmBaseUrl(app.config.externalUrl, realm);
  const domain = gatewayDomain(app.config.emailGatewayDomain, app.config.externalUrl, realm);
  const dmIds = await dmParticipantsByRecipient(db, [...new Set(kept.filter((m) => m.stream_id === null).map((m) => m.recipient_id))]);
  const names = await userNames(db, [...new Set([...dmIds.values()].flat())]);
  // One section per conversation, in the order of its first missed message.
  const byConv = new Map<string, typeof kept>();
  for (const m of kept) {
    const key = m.stream_id === null ? `dm:${m.recipient_id}` : `s:${m.stream_id}\n${m.topic_key}`;
    byConv.set(key, [...(byConv.get(key) ?? []), m]);
  }
  const { result: mail } = await app.store.write(async (tx) => {
    const conversations: MissedConversation[] = [];
    for (const msgs of byConv.values()) {
      const first = msgs[0];
      const last = msgs[msgs.length - 1];
      let title: string;
      let link: string;
      if (first.stream_id !== null) {
        const topic = first.topic || emptyTopicDisplayName(realm);
        title = `#${streamName.get(first.stream_id) ?? ''} > ${topic}`;
        link = `${base}/#narrow/channel/${first.stream_id}/topic/${encodeURIComponent(first.topic)}`;
      } else {
        const others = (dmIds.get(first.recipient_id) ?? []).filter((id) => id !== user.id);
        title = others.length > 1 ? `Group direct messages with ${others.map((id) => names.get(id) ?? '').join(', ')}` : `Direct messages with ${others.length ? names.get(others[0]) : user.full_name}`;
        link = `${base}/#narrow/dm/${(others.length ? others : [user.id]).join(',')}`;
      }
      conversations.push({
        title,
        link,
        replyTo: await newReplyAddress(tx, realm.id, user.id, last.id, now, domain),
        messages: msgs.map((m) => ({ id: m.id, senderName: m.sender_name, dateSent: m.date_sent, content: m.content, renderedContent: m.rendered_content })),
      });
    }
    const kinds = [...new Set(kept.map((m) => KIND_OF[triggerOf.get(m.id)!]))];
    const unsubscribe = [];
    for (const kind of kinds) unsubscribe.push({ label: UNSUBSCRIBE_KINDS[kind].label, url: unsubscribeUrl(base, kind, await unsubscribeToken(tx, user.id, kind)) });
    return { conversations, unsubscribe };
  });
  const email = await composeMissedEmail({ realmName: realm.name, realmUrl: base, conversations: mail.conversations, includeContent: settings.message_content_in_email_notifications !== false, unsubscribe: mail.unsubscribe });
  return {
    to: user.delivery_email,
    subject: email.subject,
    text: email.text,
    html: email.html,
    fromName: email.fromName,
    replyTo: mail.conversations[mail.conversations.length - 1].replyTo,
    headers: {
      'List-Unsubscribe': `<${mail.unsubscribe[0].url}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      // Tells vacation responders not to answer (RFC 3834).
      'Auto-Submitted': 'auto-generated',
    },
    // Kept by every attempt of this batch (see retryAbandonedBatches).
    messageId: `<${randomBytes(12).toString('hex')}.missed@${messageIdHost(app.config.externalUrl)}>`,
  };
}

const messageIdHost = (externalUrl: string): string => new URL(externalUrl).hostname || 'localhost';

async function userNames(tx: Tx, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await tx.selectFrom('users').select(['id', 'full_name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.full_name]));
}
