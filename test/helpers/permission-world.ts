// The organization the permission fuzz attacks: an owner's private data, the callers who must not reach it,
// the secrets each caller must never receive, and the owner's own read of that data before and after.
import { randomBytes } from 'node:crypto';
import { Client, type TestServer } from './server.js';
import { postFiles } from './multipart.js';
import { uploadEmoji } from './emoji.js';
import { DEFAULT_REGISTER } from './events.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da6364f8cf00000301010018dd8db40000000049454e44ae426082', 'hex');

/** Who calls: credentials and the host they present (another organization's member names its own). */
export interface Actor {
  name: string;
  client: Client | null;
  /** Secrets this caller must never receive. */
  secrets: string[];
  queueId?: string;
  /** Share of the requests this caller sends. */
  weight: number;
  /** Credentials this organization must refuse (a deactivated user's, another organization's). */
  refused?: boolean;
  /** IDs of this organization's users and channels: another organization's member never gets them back in a success. */
  foreignIds?: { users: number[]; streams: number[] };
}

export interface World {
  token: string;
  actors: Actor[];
  /** IDs of the owner's data, by kind (path and JSON leaves draw from them). */
  ids: Record<string, number[]>;
  /** IDs of objects only the owner (and those they shared them with) may use, by kind: a success on a path naming one is a breach. */
  privateIds: Record<string, number[]>;
  /** Names and other strings that point at the owner's data (channel, topic, addresses, paths). */
  names: Record<string, string[]>;
  /** The owner's read of everything above; equal before and after the fuzz. */
  ownerView: () => Promise<unknown>;
  owner: Client;
  ownerQueue: string;
}

const ALL_EVENTS_REGISTER = { ...DEFAULT_REGISTER, client_gravatar: false };

export async function buildWorld(s: TestServer): Promise<World> {
  const t = randomBytes(4).toString('hex');
  const owner = s.owner;
  // Addresses hidden from everyone (the setting's "nobody"): the default for new users, and the owner's own.
  await owner.ok('PATCH', 'realm/user_settings_defaults', { email_address_visibility: 4 });
  await owner.ok('PATCH', 'settings', { email_address_visibility: 4 });

  const friend = await s.user(`Fran Friend ${t}`);
  const friend2 = await s.user(`Fred Friend ${t}`);
  const nonsub = await s.user(`Nora Nonsub ${t}`);
  const guest = await s.user(`Gus Guest ${t}`, 600);
  const deact = await s.user(`Dee Deact ${t}`);
  const other = await s.realm2(`permother${t}`);

  // The callers' queues exist before the owner creates anything: creation events must not reach them.
  const queueOf = async (c: Client) => (await c.ok('POST', 'register', ALL_EVENTS_REGISTER)).queue_id as string;
  const nonsubQueue = await queueOf(nonsub);
  const guestQueue = await queueOf(guest);
  const otherQueue = await queueOf(other.owner);
  const ownerQueue = await queueOf(owner);

  const priv = `privch-${t}`;
  const pub = `pubch-${t}`;
  await owner.ok('POST', 'users/me/subscriptions', {
    subscriptions: [{ name: priv, description: `privdesc-${t}` }],
    invite_only: true,
    principals: [owner.userId, friend.userId, deact.userId],
  });
  await owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: pub, description: `pubdesc-${t}` }], principals: [owner.userId, friend.userId] });
  const privId = (await owner.ok('GET', 'get_stream_id', { stream: priv })).stream_id as number;
  const pubId = (await owner.ok('GET', 'get_stream_id', { stream: pub })).stream_id as number;

  const upload = await postFiles(owner, 'user_uploads', [{ data: Buffer.from(`filebody-${t}`), filename: `secretfile-${t}.txt`, contentType: 'text/plain' }]);
  if (upload.status !== 200) throw new Error(`upload failed: ${JSON.stringify(upload.body)}`);
  const uploadUrl = upload.body.url as string; // /user_uploads/<realm>/<random>/<name>
  const uploadPath = uploadUrl.slice('/user_uploads/'.length);

  const send = async (params: Record<string, unknown>) => (await owner.ok('POST', 'messages', params as never)).id as number;
  const privMsg = await send({ type: 'stream', to: priv, topic: `privtopic-${t}`, content: `privmsg-${t}` });
  const privMsg2 = await send({ type: 'stream', to: privId, topic: `privtopic2-${t}`, content: `privmsg2-${t} [file](${uploadUrl})` });
  const pubMsg = await send({ type: 'stream', to: pub, topic: `pubtopic-${t}`, content: `pubmsg-${t}` });
  const dmMsg = await send({ type: 'direct', to: [friend.userId], content: `dmmsg-${t}` });
  const gdmMsg = await send({ type: 'direct', to: [friend.userId, friend2.userId], content: `gdmmsg-${t}` });
  const messages = [privMsg, privMsg2, pubMsg, dmMsg, gdmMsg];
  await owner.ok('POST', `messages/${privMsg}/reactions`, { emoji_name: 'smile' });
  await owner.ok('POST', 'messages/flags', { messages: [privMsg, dmMsg], op: 'add', flag: 'starred' });
  await owner.ok('POST', 'user_topics', { stream_id: privId, topic: `privtopic2-${t}`, visibility_policy: 1 });
  await owner.ok('POST', 'users/me/subscriptions/properties', { subscription_data: [{ stream_id: privId, property: 'color', value: '#123456' }] });

  const later = Math.floor(Date.now() / 1000) + 86_400;
  await owner.ok('POST', 'drafts', { drafts: [{ type: 'stream', to: [privId], topic: `drafttopic-${t}`, content: `draftmsg-${t}`, timestamp: later - 86_400 }] });
  const drafts = ((await owner.ok('GET', 'drafts')).drafts as { id: number }[]).map((d) => d.id);
  const scheduled = (await owner.ok('POST', 'scheduled_messages', { type: 'stream', to: privId, topic: `schedtopic-${t}`, content: `schedmsg-${t}`, scheduled_delivery_timestamp: later })).scheduled_message_id as number;
  const scheduledDm = (await owner.ok('POST', 'scheduled_messages', { type: 'direct', to: [friend.userId], content: `scheddm-${t}`, scheduled_delivery_timestamp: later })).scheduled_message_id as number;
  const reminder = (await owner.ok('POST', 'reminders', { message_id: privMsg, scheduled_delivery_timestamp: later, note: `remnote-${t}` })).reminder_id as number;
  const snippet = (await owner.ok('POST', 'saved_snippets', { title: `snipt-${t}`, content: `snipc-${t}` })).saved_snippet_id as number;
  const fragment = `narrow/channel/${privId}-${priv}`;
  await owner.ok('POST', 'navigation_views', { fragment, is_pinned: true, name: `navname-${t}` });
  await owner.ok('POST', 'users/me/alert_words', { alert_words: [`alertw${t}`] });
  await owner.ok('POST', 'users/me/status', { status_text: `status-${t}` });
  await owner.ok('POST', `users/me/muted_users/${friend2.userId}`);

  const group = (await owner.ok('POST', 'user_groups/create', { name: `grp-${t}`, description: `grpdesc-${t}`, members: [owner.userId, friend.userId] })).group_id as number;
  const bot = await owner.ok('POST', 'bots', { full_name: `Bot ${t}`, short_name: `bot${t}` });
  bot.email = ((await owner.ok('GET', 'bots')).bots as { user_id: number; username: string }[]).find((b) => b.user_id === bot.user_id)!.username;
  const botClient = new Client(s, bot.user_id as number, bot.email as string, bot.api_key as string);
  await botClient.ok('PUT', 'bot_storage', { storage: { k: `botval-${t}` } });
  const invite = await owner.ok('POST', 'invites', { invitee_emails: `invitee-${t}@example.com`, stream_ids: [pubId], invite_expires_in_minutes: 60 });
  void invite;
  const invites = ((await owner.ok('GET', 'invites')).invites as { id: number }[]).map((i) => i.id);
  const multiuse = (await owner.ok('POST', 'invites/multiuse', { stream_ids: [privId], invite_expires_in_minutes: 60 })).invite_link as string;
  const channelEmail = (await owner.ok('GET', `streams/${privId}/email_address`)).email as string;
  const temporary = (await owner.ok('GET', `user_uploads/${uploadPath}`)).url as string;
  const attachments = ((await owner.ok('GET', 'attachments')).attachments as { id: number }[]).map((a) => a.id);

  const filter = (await owner.ok('POST', 'realm/filters', { pattern: `lk${t}(?P<id>[0-9]+)`, url_template: `https://example.com/lk${t}/{id}` })).id as number;
  const playground = (await owner.ok('POST', 'realm/playgrounds', { name: `play${t}`, pygments_language: 'Python', url_template: `https://example.com/play${t}?c={code}` })).id as number;
  const field = (await owner.ok('POST', 'realm/profile_fields', { field_type: 1, name: `pf${t}` })).id as number;
  await owner.ok('PATCH', 'users/me/profile_data', { data: [{ id: field, value: `pfval-${t}` }] });
  const folder = (await owner.ok('POST', 'channel_folders/create', { name: `folder${t}`, description: '' })).channel_folder_id as number;
  await owner.ok('POST', 'realm/domains', { domain: `d${t}.example.com`, allow_subdomains: false });
  await uploadEmoji(owner, `emoji${t}`, PNG);

  // The deactivated user was a subscriber of the private channel: their key opens nothing any more.
  await owner.ok('DELETE', `users/${deact.userId}`);

  const ownerApiKey = owner.apiKey;
  // Addresses as created (the clients hold the public ones the setting shows: user<id>@<host>).
  const real = (name: string) => `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.com`;
  const [friendEmail, friend2Email, deactEmail, guestEmail, nonsubEmail] = [`Fran Friend ${t}`, `Fred Friend ${t}`, `Dee Deact ${t}`, `Gus Guest ${t}`, `Nora Nonsub ${t}`].map(real);
  const hidden = ['owner@example.com', friendEmail, friend2Email, deactEmail, guestEmail, nonsubEmail];
  // A caller may make its own address visible to everyone (the fuzz found the guest doing so): inside the
  // organization, only the addresses of people who are not calling stay secret.
  const hiddenInside = ['owner@example.com', friendEmail, friend2Email, deactEmail];
  const orgPrivate = [
    priv, `privdesc-${t}`, `privtopic-${t}`, `privtopic2-${t}`, `privmsg-${t}`, `privmsg2-${t}`, `dmmsg-${t}`, `gdmmsg-${t}`,
    `drafttopic-${t}`, `draftmsg-${t}`, `schedtopic-${t}`, `schedmsg-${t}`, `scheddm-${t}`, `remnote-${t}`, `snipt-${t}`, `snipc-${t}`, `navname-${t}`, `alertw${t}`,
    `filebody-${t}`, `secretfile-${t}`, uploadPath.split('/')[2], `botval-${t}`, bot.api_key as string, ownerApiKey, friend.apiKey, friend2.apiKey,
    `invitee-${t}`, new URL(multiuse).searchParams.get('key') ?? multiuse, channelEmail.split('@')[0].split('.').pop()!, temporary.split('/')[3], ownerQueue,
  ];
  if (orgPrivate.some((x) => x.length < 12)) throw new Error(`a secret too short to look for: ${orgPrivate.filter((x) => x.length < 12).join(', ')}`);
  const orgPublic = [`pubdesc-${t}`, `grp-${t}`, `grpdesc-${t}`, `status-${t}`, `lk${t}`, `play${t}`, `pf${t}`, `pfval-${t}`, `folder${t}`, `d${t}.example.com`, `emoji${t}`, `Fran Friend ${t}`, `Bot ${t}`];
  // Guests see the channels they are subscribed to: not the public channel's messages.
  const guestAlso = [`pubtopic-${t}`, `pubmsg-${t}`];
  const outsider = [...orgPrivate, ...orgPublic, ...guestAlso, pub, ...hidden];

  const users = [owner.userId, friend.userId, friend2.userId, deact.userId, bot.user_id as number];
  const generalId = (await owner.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id as number;
  const actors: Actor[] = [
    { name: 'nonsub', client: nonsub, secrets: [...orgPrivate, ...hiddenInside], queueId: nonsubQueue, weight: 3 },
    { name: 'guest', client: guest, secrets: [...orgPrivate, ...guestAlso, ...hiddenInside], queueId: guestQueue, weight: 3 },
    { name: 'other_org', client: other.owner, secrets: outsider, queueId: otherQueue, weight: 2, foreignIds: { users: [...users, nonsub.userId, guest.userId], streams: [privId, pubId, generalId] } },
    // The same member presenting its credentials to this organization: they name nobody here.
    { name: 'other_org_here', client: new Client(s, other.owner.userId, other.owner.email, other.owner.apiKey), secrets: outsider, weight: 1, refused: true },
    { name: 'deactivated', client: deact, secrets: outsider, weight: 1, refused: true },
    { name: 'anonymous', client: null, secrets: outsider, weight: 1 },
  ];

  const ids: Record<string, number[]> = {
    message: messages, stream: [privId, pubId], user: users, draft: drafts, scheduled: [scheduled, scheduledDm], reminder: [reminder], snippet: [snippet],
    group: [group], bot: [bot.user_id as number], invite: invites, attachment: attachments, filter: [filter], playground: [playground], field: [field], folder: [folder], realm: [s.realm.id],
  };
  const names: Record<string, string[]> = {
    stream: [priv, pub], topic: [`privtopic-${t}`, `privtopic2-${t}`, `pubtopic-${t}`], email: ['owner@example.com', friendEmail, owner.email, friend.email, bot.email as string, deact.email],
    upload: [uploadPath], fragment: [fragment], emoji: [`emoji${t}`], domain: [`d${t}.example.com`], queue: [ownerQueue],
    temporary: [temporary.slice('/user_uploads/temporary/'.length)],
  };

  const strip = (o: any, keys: string[]): any => {
    if (Array.isArray(o)) return o.map((x) => strip(x, keys));
    if (o && typeof o === 'object') return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)).map(([k, v]) => [k, strip(v, keys)]));
    return o;
  };
  const VOLATILE = ['queue_id', 'last_event_id', 'server_timestamp', 'presence_last_update_id', 'result', 'msg', 'subscriber_count', 'stream_weekly_traffic', 'last_active_time', 'first_message_id'];
  const ownerView = async () => {
    const get = async (path: string, params: Record<string, unknown> = {}, c: Client = owner) => strip(await c.ok('GET', path, params as never), VOLATILE);
    const narrowed = async (narrow: unknown) => get('messages', { narrow, anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: false });
    const reg = await owner.ok('POST', 'register', {
      ...ALL_EVENTS_REGISTER,
      fetch_event_types: ['realm', 'realm_linkifiers', 'realm_playgrounds', 'custom_profile_fields', 'default_streams', 'channel_folders', 'realm_domains', 'realm_user_settings_defaults', 'user_settings', 'alert_words', 'muted_users', 'user_topic', 'user_status', 'drafts', 'saved_snippets', 'navigation_views', 'realm_bot'],
    });
    await owner.ok('DELETE', 'events', { queue_id: reg.queue_id });
    // Callers may create their own bots and set their own status: only the owner's are the owner's data.
    reg.realm_bots = ((reg.realm_bots ?? []) as { user_id: number }[]).filter((b) => b.user_id === bot.user_id);
    reg.user_status = ((reg.user_status ?? {}) as Record<string, unknown>)[owner.userId];
    const emoji = (await owner.ok('GET', 'realm/emoji')).emoji as Record<string, { name: string }>;
    return {
      register: strip(reg, VOLATILE),
      // Members may move and retitle public channels' messages (within the organization's time limits): only the private ones are compared.
      messages: await get('messages', { message_ids: messages.filter((m) => m !== pubMsg), apply_markdown: false }),
      privateChannel: await narrowed([{ operator: 'channel', operand: privId }]),
      dms: await narrowed([{ operator: 'dm', operand: [friend.userId] }]),
      groupDms: await narrowed([{ operator: 'dm', operand: [friend.userId, friend2.userId] }]),
      history: await get(`messages/${privMsg}/history`),
      streams: [await get(`streams/${privId}`), await get(`streams/${pubId}`), await get(`streams/${privId}/members`)],
      subscription: (strip(await owner.ok('GET', 'users/me/subscriptions', { include_subscribers: false }), VOLATILE).subscriptions as { stream_id: number }[]).filter((x) => x.stream_id === privId || x.stream_id === pubId),
      scheduled: await get('scheduled_messages'),
      reminders: await get('reminders'),
      attachments: await get('attachments'),
      group: [await get(`user_groups/${group}/members`), ((await get('user_groups')).user_groups as { id: number }[]).find((g) => g.id === group)],
      bots: [((await get('bots')).bots as { user_id: number }[]).filter((b) => b.user_id === bot.user_id), await get(`bots/${bot.user_id}/api_key`), await get('bot_storage', {}, botClient)],
      users: await Promise.all(users.map((u) => get(`users/${u}`))),
      invites: ((await get('invites')).invites as { id: number }[]).filter((i) => invites.includes(i.id)),
      emoji: Object.values(emoji).filter((e) => e.name === `emoji${t}`),
      channelEmail: await get(`streams/${privId}/email_address`),
      file: (await get(`user_uploads/${uploadPath}`)).url !== undefined,
    };
  };
  const privateIds: Record<string, number[]> = {
    message: [privMsg, privMsg2, dmMsg, gdmMsg], stream: [privId], draft: drafts, scheduled: [scheduled, scheduledDm], reminder: [reminder], snippet: [snippet], attachment: attachments, bot: [bot.user_id as number],
  };
  return { token: t, actors, ids, privateIds, names, ownerView, owner, ownerQueue };
}
