// Weekly digest emails (organization setting digest_emails_enabled, on its digest_weekday) to users who were away.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { realmSettings, emptyTopicDisplayName } from '../lib/realm-settings.js';
import { effectiveUserSettings } from '../models/user-settings.js';
import { composeDigest, type DigestTopic } from '../lib/mail/digest.js';
import { realmBaseUrl, unsubscribeToken, unsubscribeUrl } from '../lib/mail/tokens.js';

const DAY = 24 * 3600;
/** The digest covers a week; a user active within the last five days gets none (they saw it). */
export const DIGEST_PERIOD_SECS = 7 * DAY;
export const DIGEST_AWAY_SECS = 5 * DAY;
const MAX_TOPICS = 5;

/** Monday 0 … Sunday 6, as digest_weekday counts (UTC). */
export const weekdayOf = (unix: number): number => (new Date(unix * 1000).getUTCDay() + 6) % 7;

/**
 * Sends the digests due today: for each organization with digests on whose weekday it is, every
 * active human member with enable_digest_emails, away for five days and not sent one in six.
 * A user is claimed by moving their last_sent_at forward in one conditional statement, so two
 * nodes never both send. Returns how many went out.
 */
export async function deliverDueDigests(app: AppContext, limit = 100): Promise<number> {
  const now = app.clock.now();
  const db = app.store.db;
  const realms = (await db.selectFrom('realms').selectAll().where('deactivated', '=', 0).execute()).filter((r) => {
    const s = realmSettings(r);
    return s.digest_emails_enabled === true && Number(s.digest_weekday) === weekdayOf(now);
  });
  let sent = 0;
  for (const realm of realms) {
    const users = await db
      .selectFrom('users as u')
      .leftJoin('email_digest_state as d', 'd.user_id', 'u.id')
      .leftJoin('user_presence as p', 'p.user_id', 'u.id')
      .selectAll('u')
      .where('u.realm_id', '=', realm.id)
      .where('u.is_active', '=', 1)
      .where('u.is_bot', '=', 0)
      .where((eb) => eb.or([eb('d.last_sent_at', 'is', null), eb('d.last_sent_at', '<', now - 6 * DAY)]))
      .where((eb) => eb.or([eb('p.last_active_time', 'is', null), eb('p.last_active_time', '<', now - DIGEST_AWAY_SECS)]))
      .limit(limit)
      .execute();
    for (const user of users) {
      if (effectiveUserSettings(user.settings).enable_digest_emails !== true) continue;
      if (!(await claim(app, user.id, now))) continue;
      try {
        if (await sendDigest(app, realm, user, now)) sent++;
      } catch (err) {
        app.log.error({ err, user_id: user.id }, 'digest email failed');
        // Not sent: the claim goes, so the next pass (this node's or another's) tries again.
        await release(app, user.id, now).catch((e: unknown) => app.log.error({ err: e, user_id: user.id }, 'releasing a digest claim'));
      }
    }
  }
  return sent;
}

async function claim(app: AppContext, userId: number, now: number): Promise<boolean> {
  const { result } = await app.store.write(async (tx) => {
    const up = await tx.updateTable('email_digest_state').set({ last_sent_at: now }).where('user_id', '=', userId).where('last_sent_at', '<', now - 6 * DAY).executeTakeFirst();
    if (Number(up.numUpdatedRows) === 1) return true;
    const ins = await tx.insertInto('email_digest_state').values({ user_id: userId, last_sent_at: now }).onConflict((oc) => oc.column('user_id').doNothing()).executeTakeFirst();
    return Number(ins.numInsertedOrUpdatedRows ?? 0) === 1;
  });
  return result;
}

/** Undoes claim() after a failed send: the digest is due again. */
async function release(app: AppContext, userId: number, claimedAt: number): Promise<void> {
  await app.store.write((tx) => tx.updateTable('email_digest_state').set({ last_sent_at: 0 }).where('user_id', '=', userId).where('last_sent_at', '=', claimedAt).execute());
}

async function sendDigest(app: AppContext, realm: Realm, user: User, now: number): Promise<boolean> {
  const db = app.store.db;
  const since = now - DIGEST_PERIOD_SECS;
  const rows = await db
    .selectFrom('messages as m')
    .innerJoin('subscriptions as s', (j) => j.onRef('s.stream_id', '=', 'm.stream_id').on('s.user_id', '=', user.id).on('s.active', '=', 1).on('s.is_muted', '=', 0))
    .innerJoin('streams as st', 'st.id', 'm.stream_id')
    .innerJoin('users as sender', 'sender.id', 'm.sender_id')
    .select(['m.stream_id', 'st.name as channel', 'm.topic', 'm.topic_key', 'sender.full_name as sender'])
    .where('m.realm_id', '=', realm.id)
    .where('m.date_sent', '>=', since)
    .where('m.sender_id', '!=', user.id)
    .orderBy('m.id')
    .limit(5000)
    .execute();
  const base = realmBaseUrl(app.config.externalUrl, realm);
  const byTopic = new Map<string, DigestTopic & { senderSet: Set<string> }>();
  for (const r of rows) {
    const key = `${r.stream_id}\n${r.topic_key}`;
    let t = byTopic.get(key);
    if (!t) {
      t = { channel: r.channel, topic: r.topic || emptyTopicDisplayName(realm), messages: 0, senders: [], senderSet: new Set(), link: `${base}/#narrow/channel/${r.stream_id}/topic/${encodeURIComponent(r.topic)}` };
      byTopic.set(key, t);
    }
    t.messages++;
    if (!t.senderSet.has(r.sender)) {
      t.senderSet.add(r.sender);
      t.senders.push(r.sender);
    }
  }
  const topics = [...byTopic.values()].sort((a, b) => b.senders.length - a.senders.length || b.messages - a.messages).slice(0, MAX_TOPICS);
  const newChannels = await db
    .selectFrom('streams')
    .select(['id', 'name', 'description'])
    .where('realm_id', '=', realm.id)
    .where('invite_only', '=', 0)
    .where('is_archived', '=', 0)
    .where('date_created', '>=', since)
    .orderBy('id')
    .limit(10)
    .execute();
  if (!topics.length && !newChannels.length) return false;
  const { result: token } = await app.store.write((tx) => unsubscribeToken(tx, user.id, 'digest'));
  const unsub = unsubscribeUrl(base, 'digest', token);
  const mail = await composeDigest({
    realmName: realm.name,
    realmUrl: base,
    topics: topics.map(({ senderSet: _s, ...t }) => t),
    newChannels: newChannels.map((c) => ({ name: c.name, description: c.description, link: `${base}/#narrow/channel/${c.id}` })),
    unsubscribeUrl: unsub,
  });
  await app.mail.send({ to: user.delivery_email, subject: mail.subject, text: mail.text, html: mail.html, fromName: realm.name, headers: { 'List-Unsubscribe': `<${unsub}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Auto-Submitted': 'auto-generated' } });
  return true;
}
