// Bulk-loads the bench organizations' people, channels, subscriptions and message history straight into the database.
import type { Row, Sink } from './db-sink.js';
import type { Sizes } from './sizes.js';
import type { Cred } from './api.js';

/** What the scenarios need to know about one organization; user credentials are derived, not stored. */
export interface RealmMeta {
  id: number;
  /** Host header for API calls (none for the root organization). */
  host?: string;
  /** Prefix of the bulk-loaded users' emails and API keys. */
  key: string;
  /** Bulk-loaded users, numbered from 0. */
  users: number;
  firstUserId: number;
  channels: Record<string, number>;
  owner: Cred;
}

export interface FixtureMeta {
  root: RealmMeta;
  reg: RealmMeta;
  fan: RealmMeta;
  /** The unread-backlog member (user 0) and its senders, in the root organization. */
  backlog: RealmMeta;
}

/** Credentials of bulk-loaded user i of an organization. */
export function userCred(r: RealmMeta, i: number): Cred {
  return { email: `${r.key}-u${i}@bench.example.com`, apiKey: `${r.key}-k${i}-`.padEnd(32, 'x'), host: r.host };
}

const MEMBER = 400;
const READ = 1;
const WORDS = 'the a chat server message topic channel bench latency deploy review merge release fix bug test build green red ship today tomorrow meeting notes lunch coffee please thanks agreed looks good to me we should maybe later now queue event poll durable write index query plan cache'.split(' ');

/** A small deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Loader {
  private now = Math.floor(Date.now() / 1000);
  private next: Record<string, number> = {};

  constructor(private readonly sink: Sink) {}

  async init(): Promise<void> {
    for (const t of ['users', 'streams', 'recipients', 'messages', 'direct_message_groups']) {
      const [r] = await this.sink.all<{ m: number }>(`SELECT coalesce(max(id), 0) AS m FROM ${t}`);
      this.next[t] = Number(r.m) + 1;
    }
  }

  private take(table: string, n: number): number {
    const first = this.next[table];
    this.next[table] += n;
    return first;
  }

  async users(realmId: number, key: string, n: number): Promise<number> {
    const first = this.take('users', n);
    const groups = await this.sink.all<{ id: number; name: string }>(`SELECT id, name FROM user_groups WHERE realm_id = ? AND is_system_group = 1`, [realmId]);
    const gid = (name: string) => groups.find((g) => g.name === name)!.id;
    const now = this.now;
    function* rows(): Generator<Row> {
      for (let i = 0; i < n; i++) {
        const email = `${key}-u${i}@bench.example.com`;
        yield [first + i, realmId, email, email, email, `Bench ${key} ${i}`, null, `${key}-k${i}-`.padEnd(32, 'x'), MEMBER, 1, 0, null, null, now, '', 'G', 1, 0, 0, '{}'];
      }
    }
    const cols = ['id', 'realm_id', 'email', 'delivery_email', 'email_key', 'full_name', 'password_hash', 'api_key', 'role', 'is_active', 'is_bot', 'bot_type', 'bot_owner_id', 'date_joined', 'timezone', 'avatar_source', 'avatar_version', 'is_imported_stub', 'is_deleted', 'settings'];
    await this.sink.insert('users', cols, rows());
    const members = gid('role:members');
    const full = gid('role:fullmembers');
    function* memberships(): Generator<Row> {
      for (let i = 0; i < n; i++) {
        yield [members, first + i];
        yield [full, first + i];
      }
    }
    await this.sink.insert('user_group_members', ['group_id', 'user_id'], memberships());
    return first;
  }

  async channels(realmId: number, names: string[]): Promise<Record<string, number>> {
    const [general] = await this.sink.all<{ permissions: string }>(`SELECT permissions FROM streams WHERE realm_id = ? AND name_key = 'general'`, [realmId]);
    const first = this.take('streams', names.length);
    const firstRecipient = this.take('recipients', names.length);
    const now = this.now;
    const rows = names.map((name, i): Row => [first + i, realmId, name, name.toLowerCase(), `Bench channel ${name}`, `<p>Bench channel ${name}</p>`, 0, 1, 0, 0, now, null, firstRecipient + i, null, null, 'inherit', null, general.permissions]);
    const cols = ['id', 'realm_id', 'name', 'name_key', 'description', 'rendered_description', 'invite_only', 'history_public_to_subscribers', 'is_web_public', 'is_archived', 'date_created', 'creator_id', 'recipient_id', 'first_message_id', 'message_retention_days', 'topics_policy', 'folder_id', 'permissions'];
    await this.sink.insert('streams', cols, rows);
    await this.sink.insert('recipients', ['id', 'type', 'type_id'], names.map((_, i): Row => [firstRecipient + i, 2, first + i]));
    return Object.fromEntries(names.map((n, i) => [n, first + i]));
  }

  async subscribe(pairs: Iterable<[userId: number, streamId: number]>): Promise<void> {
    const colors = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55'];
    function* rows(): Generator<Row> {
      let n = 0;
      for (const [u, s] of pairs) yield [u, s, 1, 0, 0, colors[n++ % colors.length]];
    }
    await this.sink.insert('subscriptions', ['user_id', 'stream_id', 'active', 'is_muted', 'pin_to_top', 'color'], rows());
  }

  /** count messages spread over the channels, topic "t" plus numbered ones, each with its subscribers' rows. */
  async history(realmId: number, streams: { id: number; recipient: number }[], topics: number, subscribers: number[], count: number): Promise<void> {
    const first = this.take('messages', count);
    const start = this.now - count;
    const random = rng(42);
    const texts: string[] = [];
    for (let i = 0; i < 4096; i++) {
      const n = 5 + Math.floor(random() * 35);
      const words: string[] = [];
      for (let w = 0; w < n; w++) words.push(WORDS[Math.floor(random() * WORDS.length)]);
      texts.push(words.join(' '));
    }
    const H = streams.length;
    const topicOf = (i: number) => {
      const k = Math.floor(i / H) % topics;
      return k === 0 ? 't' : `topic ${k}`;
    };
    function* messages(): Generator<Row> {
      for (let i = 0; i < count; i++) {
        const s = streams[i % H];
        const topic = topicOf(i);
        const text = texts[i % texts.length];
        yield [first + i, realmId, 1, s.recipient, s.id, subscribers[i % subscribers.length], topic, topic, text, `<p>${text}</p>`, start + i, 'bench', null, null, null, 0, 0, 0, 0];
      }
    }
    const mcols = ['id', 'realm_id', 'type', 'recipient_id', 'stream_id', 'sender_id', 'topic', 'topic_key', 'content', 'rendered_content', 'date_sent', 'sending_client', 'last_edit_time', 'last_moved_time', 'edit_history', 'is_me_message', 'has_link', 'has_image', 'has_attachment'];
    const restoreMessages = await this.sink.dropIndexes('messages');
    const restoreUm = await this.sink.dropIndexes('user_messages');
    await this.sink.insert('messages', mcols, messages());
    const unreadFrom = Math.floor(count * 0.99);
    function* userMessages(): Generator<Row> {
      for (let i = 0; i < count; i++) {
        const sender = subscribers[i % subscribers.length];
        for (const u of subscribers) yield [first + i, u, u === sender || i < unreadFrom ? READ : 0];
      }
    }
    // Rows arrive in primary-key order (message_id, user_id), as the clustered table stores them.
    await this.sink.insert('user_messages', ['message_id', 'user_id', 'flags'], userMessages());
    if (this.sink.dialect === 'sqlite') {
      function* search(): Generator<Row> {
        for (let i = 0; i < count; i++) yield [first + i, topicOf(i), texts[i % texts.length]];
      }
      await this.sink.insert('message_search', ['rowid', 'topic', 'content'], search());
      // One merged index, as a server's merger leaves it (store/search-merge.ts): indexing leaves
      // merging to it, and the bench must not time its catching up with a million rows.
      await this.sink.exec(`INSERT INTO message_search (message_search) VALUES ('optimize')`);
    }
    await restoreMessages();
    await restoreUm();
    // Nothing older than the last 1% is unread: the history subscribers' floors start there.
    await this.sink.exec(`UPDATE subscriptions SET unread_floor = ${first + unreadFrom} WHERE stream_id IN (${streams.map((s) => s.id).join(',')})`);
    for (const s of streams) await this.sink.exec(`UPDATE streams SET first_message_id = (SELECT min(id) FROM messages WHERE stream_id = ${s.id}) WHERE id = ${s.id}`);
  }

  /**
   * The unread backlog of `reader`: `channelCount` unread channel messages over the channels
   * (`topics` topics in all, the same number in each) from `senders`, with `personal` unread
   * direct and group-direct messages spread among them and as many mentions again (a fifth of them
   * wildcard). Rows: the reader's, the sender's (read), and the other group members' (read).
   */
  async backlog(realmId: number, reader: number, senders: number[], streams: { id: number; recipient: number }[], topics: number, channelCount: number, personal: number): Promise<void> {
    const conversations = [...senders.slice(0, 10).map((s) => [reader, s]), [reader, senders[0], senders[1]], [reader, ...senders.slice(2, 5)], [reader, ...senders.slice(-2)]];
    const firstGroup = this.take('direct_message_groups', conversations.length);
    const firstRecipient = this.take('recipients', conversations.length);
    await this.sink.insert('recipients', ['id', 'type', 'type_id'], conversations.map((_, i): Row => [firstRecipient + i, 3, firstGroup + i]));
    await this.sink.insert('direct_message_groups', ['id', 'realm_id', 'user_ids_key', 'recipient_id'], conversations.map((c, i): Row => [firstGroup + i, realmId, [...c].sort((a, b) => a - b).join(','), firstRecipient + i]));
    const total = channelCount + personal;
    const first = this.take('messages', total);
    const start = this.now - total;
    const H = streams.length;
    const perChannel = Math.max(1, Math.floor(topics / H));
    const mentionEvery = Math.max(1, Math.floor(channelCount / personal));
    const isDm = (j: number) => Math.floor(((j + 1) * personal) / total) > Math.floor((j * personal) / total);
    interface Planned {
      id: number;
      conv: number[] | null;
      stream: { id: number; recipient: number } | null;
      recipient: number;
      sender: number;
      topic: string;
      readerFlags: number;
    }
    function* plan(): Generator<Planned> {
      let i = 0;
      let d = 0;
      for (let j = 0; j < total; j++) {
        if (isDm(j)) {
          const k = d++ % conversations.length;
          const conv = conversations[k];
          yield { id: first + j, conv, stream: null, recipient: firstRecipient + k, sender: conv[1 + (d % (conv.length - 1))], topic: '', readerFlags: 256 };
          continue;
        }
        const s = streams[i % H];
        const topic = `topic ${Math.floor(i / H) % perChannel}`;
        const n = i / mentionEvery;
        const readerFlags = i % mentionEvery === 0 ? (n % 5 === 4 ? 16 : 8) : 0;
        yield { id: first + j, conv: null, stream: s, recipient: s.recipient, sender: senders[i % senders.length], topic, readerFlags };
        i++;
      }
    }
    function* messages(): Generator<Row> {
      for (const p of plan()) {
        const text = `backlog message ${p.id - first}`;
        yield [p.id, realmId, p.stream ? 1 : 2, p.recipient, p.stream?.id ?? null, p.sender, p.topic, p.topic, text, `<p>${text}</p>`, start + (p.id - first), 'bench', null, null, null, 0, 0, 0, 0];
      }
    }
    const mcols = ['id', 'realm_id', 'type', 'recipient_id', 'stream_id', 'sender_id', 'topic', 'topic_key', 'content', 'rendered_content', 'date_sent', 'sending_client', 'last_edit_time', 'last_moved_time', 'edit_history', 'is_me_message', 'has_link', 'has_image', 'has_attachment'];
    await this.sink.insert('messages', mcols, messages());
    function* userMessages(): Generator<Row> {
      for (const p of plan()) {
        const people = p.conv ? [...p.conv].sort((a, b) => a - b) : [reader, p.sender].sort((a, b) => a - b);
        for (const u of people) yield [p.id, u, u === reader ? p.readerFlags : READ | (p.conv ? 256 : 0)];
      }
    }
    await this.sink.insert('user_messages', ['message_id', 'user_id', 'flags'], userMessages());
    if (this.sink.dialect === 'sqlite') {
      function* search(): Generator<Row> {
        for (const p of plan()) yield [p.id, p.topic, `backlog message ${p.id - first}`];
      }
      await this.sink.insert('message_search', ['rowid', 'topic', 'content'], search());
    }
    await this.sink.exec(`UPDATE subscriptions SET unread_floor = ${first} WHERE user_id = ${reader} AND stream_id IN (${streams.map((s) => s.id).join(',')})`);
    for (const s of streams) await this.sink.exec(`UPDATE streams SET first_message_id = (SELECT min(id) FROM messages WHERE stream_id = ${s.id}) WHERE id = ${s.id}`);
  }
}

export interface CreatedRealm {
  id: number;
  ownerId: number;
  owner: Cred;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Loads the three organizations' contents (created beforehand with `parley create-realm`). */
export async function bulkLoad(sink: Sink, created: { root: CreatedRealm; reg: CreatedRealm; fan: CreatedRealm }, z: Sizes, log: (s: string) => void): Promise<FixtureMeta> {
  const L = new Loader(sink);
  await L.init();

  // Root organization: the send channel and the message history.
  const rootUsers = Math.max(z.sendSubscribers, z.historySubscribers);
  const r0 = await L.users(created.root.id, 'root', rootUsers);
  const historyNames = range(z.historyChannels).map((i) => `history-${i}`);
  const rootChannels = await L.channels(created.root.id, ['bench', ...historyNames]);
  const hist = historyNames.map((n) => rootChannels[n]);
  const historySubs = range(z.historySubscribers).map((i) => r0 + i);
  await L.subscribe(
    (function* () {
      for (let i = 0; i < z.sendSubscribers; i++) yield [r0 + i, rootChannels.bench] as [number, number];
      for (const u of historySubs) for (const s of hist) yield [u, s] as [number, number];
    })(),
  );
  const recipients = await sink.all<{ id: number; recipient_id: number }>(`SELECT id, recipient_id FROM streams WHERE id IN (${hist.join(',')})`);
  const t0 = Date.now();
  await L.history(
    created.root.id,
    hist.map((id) => ({ id, recipient: recipients.find((r) => r.id === id)!.recipient_id })),
    z.historyTopics,
    historySubs,
    z.historyMessages,
  );
  log(`  loaded ${z.historyMessages} messages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // Register organization: regUsers people (the owner included), regChannels channels.
  const regN = z.regUsers - 1;
  const g0 = await L.users(created.reg.id, 'reg', regN);
  const regChannels = await L.channels(created.reg.id, range(z.regChannels - 1).map((i) => `team-${i}`));
  const [general] = await sink.all<{ id: number }>(`SELECT id FROM streams WHERE realm_id = ? AND name_key = 'general'`, [created.reg.id]);
  const regIds = [general.id, ...Object.values(regChannels)];
  await L.subscribe(
    (function* () {
      for (let i = 0; i < regN; i++) {
        yield [g0 + i, general.id] as [number, number];
        for (let k = 1; k < z.regSubsPerUser; k++) yield [g0 + i, regIds[1 + ((i + k * 7) % (regIds.length - 1))]] as [number, number];
      }
      for (const s of regIds.slice(1)) yield [created.reg.ownerId, s] as [number, number];
    })(),
  );

  // Fan-out organization: fanUsers people; fan-N channels with the first N as subscribers; hold has everyone.
  const f0 = await L.users(created.fan.id, 'fan', z.fanUsers);
  const fanNames = z.fanout.map((n) => `fan-${n}`);
  const fanChannels = await L.channels(created.fan.id, [...fanNames, 'hold']);
  await L.subscribe(
    (function* () {
      for (const [k, n] of z.fanout.entries()) for (let i = 0; i < n; i++) yield [f0 + i, fanChannels[fanNames[k]]] as [number, number];
      for (let i = 0; i < z.fanUsers; i++) yield [f0 + i, fanChannels.hold] as [number, number];
    })(),
  );

  // The unread-backlog member and its senders, in the root organization.
  const b0 = await L.users(created.root.id, 'backlog', 13);
  const backlogChannels = await L.channels(created.root.id, range(z.backlogChannels).map((i) => `backlog-${i}`));
  const backlogIds = Object.values(backlogChannels);
  await L.subscribe(
    (function* () {
      for (const s of backlogIds) for (let u = 0; u < 13; u++) yield [b0 + u, s] as [number, number];
    })(),
  );
  const backlogRecipients = await sink.all<{ id: number; recipient_id: number }>(`SELECT id, recipient_id FROM streams WHERE id IN (${backlogIds.join(',')})`);
  const t1 = Date.now();
  await L.backlog(
    created.root.id,
    b0,
    range(12).map((i) => b0 + 1 + i),
    backlogIds.map((id) => ({ id, recipient: backlogRecipients.find((r) => r.id === id)!.recipient_id })),
    z.backlogTopics,
    z.backlogMessages,
    z.backlogPersonal,
  );
  log(`  loaded the unread backlog (${z.backlogMessages + z.backlogPersonal} messages) in ${((Date.now() - t1) / 1000).toFixed(1)} s`);

  // Every other subscription the loader made has no unread history: its floor starts after the newest message.
  await sink.exec(`UPDATE subscriptions SET unread_floor = (SELECT coalesce(max(id), 0) + 1 FROM messages) WHERE unread_floor = 0`);

  const meta = (c: CreatedRealm, key: string, host: string | undefined, users: number, first: number, channels: Record<string, number>): RealmMeta => ({
    id: c.id,
    host,
    key,
    users,
    firstUserId: first,
    channels,
    owner: { ...c.owner, host },
  });
  return {
    root: meta(created.root, 'root', undefined, rootUsers, r0, rootChannels),
    reg: meta(created.reg, 'reg', 'reg.localhost', regN, g0, { general: general.id, ...regChannels }),
    fan: meta(created.fan, 'fan', 'fan.localhost', z.fanUsers, f0, fanChannels),
    backlog: meta(created.root, 'backlog', undefined, 13, b0, backlogChannels),
  };
}
