// Checks an ImportBundle's references before anything is written: every user, channel and upload named must exist.
import { ImportError, type ImportBundle } from './bundle.js';

export function validateBundle(b: ImportBundle): void {
  const users = new Set<string>();
  for (const u of b.users) {
    if (users.has(u.key)) throw new ImportError(`user ${u.key} appears twice in the export`);
    users.add(u.key);
  }
  const needUser = (key: string | null | undefined, where: string) => {
    if (key !== null && key !== undefined && !users.has(key)) throw new ImportError(`${where} refers to unknown user ID ${key}`);
  };
  const channels = new Set<string>();
  const names = new Set<string>();
  for (const c of b.channels) {
    if (channels.has(c.key)) throw new ImportError(`channel ${c.key} appears twice in the export`);
    if (names.has(c.name.toLowerCase())) throw new ImportError(`two channels are named "${c.name}"`);
    channels.add(c.key);
    names.add(c.name.toLowerCase());
    for (const s of c.subscribers) needUser(s.userKey, `channel "${c.name}"'s subscriber list`);
  }
  const attachments = new Set(b.attachments.map((a) => a.key));
  for (const a of b.attachments) needUser(a.ownerKey, `attachment "${a.fileName}"`);
  for (const m of b.messages) {
    const where = `message ${m.key}`;
    needUser(m.senderKey, where);
    if (m.channelKey !== undefined) {
      if (!channels.has(m.channelKey)) throw new ImportError(`${where} refers to unknown channel ${m.channelKey}`);
    } else if (!m.dmUserKeys?.length) throw new ImportError(`${where} has neither a channel nor direct-message recipients`);
    for (const k of m.dmUserKeys ?? []) needUser(k, where);
    for (const r of m.reactions) needUser(r.userKey, `a reaction to ${where}`);
    for (const k of m.flags?.keys() ?? []) needUser(k, `a recipient of ${where}`);
    for (const k of m.attachmentKeys ?? []) if (!attachments.has(k)) throw new ImportError(`${where} refers to unknown attachment ${k}`);
    if (!Number.isFinite(m.dateSent)) throw new ImportError(`${where} has no valid date`);
  }
  for (const g of b.userGroups) for (const k of g.memberKeys) needUser(k, `user group "${g.name}"`);
  for (const d of b.drafts) needUser(d.userKey, 'a draft');
  for (const t of b.topicPolicies) {
    needUser(t.userKey, 'a topic visibility policy');
    if (!channels.has(t.channelKey)) throw new ImportError(`a topic visibility policy refers to unknown channel ${t.channelKey}`);
  }
  for (const m of b.scheduledMessages ?? []) {
    needUser(m.senderKey, 'a scheduled message');
    if (m.channelKey !== undefined && !channels.has(m.channelKey)) throw new ImportError(`a scheduled message refers to unknown channel ${m.channelKey}`);
    for (const k of m.dmUserKeys ?? []) needUser(k, 'a scheduled message');
  }
  for (const f of b.profileFields) for (const v of f.values) needUser(v.userKey, `custom profile field "${f.name}"`);
}
