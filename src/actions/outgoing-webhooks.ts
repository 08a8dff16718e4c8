// Outgoing webhooks: after a message that mentions an outgoing-webhook bot (or is a direct message to
// one) commits, the server POSTs the original's payload to the bot's URL and posts the answer's
// content back as the bot. Runs after the send returned, never on its path; one attempt with a timeout;
// a failure is told to the bot's owner, as the original does.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { BotServiceRow } from '../store/schema-people.js';
import type { Outgoing } from '../events/publish.js';
import type { MessageDict } from '../presenters/message.js';
import { finalizeMessage } from '../presenters/message.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { realmHostName } from '../lib/users.js';
import { INTERFACE_SLACK, OUTGOING_WEBHOOK_TIMEOUT_MS, realmServices, replyContent } from '../lib/outgoing-webhooks.js';
import { checkUrlHost, publicOnlyAgent, rootCause } from '../lib/net/public-address.js';
import { fetch as undiciFetch } from 'undici';

type Send = (app: AppContext, realm: Realm, sender: User, input: { kind: 'stream' | 'private'; stream?: number; dmTo?: number[]; topic?: string; content: string; readBySender: boolean; clientName: string }) => Promise<{ id: number }>;

/** Starts the webhook calls a committed message triggers; returns at once. `send` is doSendMessage (passed in: no import cycle). */
export function triggerOutgoingWebhooks(app: AppContext, realm: Realm, sender: User, notice: Outgoing, mentionedUserIds: readonly number[], send: Send): void {
  // Bots' messages trigger nothing: two bots must not answer each other forever.
  if (sender.is_bot) return;
  realmServices(app, realm.id)
    .then((services) => {
      if (!services.size) return;
      const message = (notice.event as unknown as { message: MessageDict }).message;
      const direct = message.type === 'private';
      const candidates = direct ? notice.users : mentionedUserIds;
      for (const botId of new Set(candidates)) {
        const service = services.get(botId);
        if (service && botId !== sender.id) void deliver(app, realm, message, service, direct ? 'direct_message' : 'mention', send);
      }
    })
    .catch((err: unknown) => app.log.error({ err }, 'outgoing webhooks: reading the services failed'));
}

async function deliver(app: AppContext, realm: Realm, message: MessageDict, service: BotServiceRow, trigger: string, send: Send): Promise<void> {
  const bot = await app.store.db.selectFrom('users').selectAll().where('id', '=', service.bot_id).executeTakeFirst();
  if (!bot || !bot.is_active) return;
  const request = service.interface === INTERFACE_SLACK ? slackRequest(app, realm, message, service, trigger) : genericRequest(realm, message, service, bot, trigger);
  // Slack's form has no direct messages: the original sends nothing for them.
  if (!request) return;
  let failure: string;
  try {
    const res = await postHook(app, service.base_url, request);
    const text = await res.text();
    if (res.ok) {
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // The original posts nothing for an answer that is not JSON.
      }
      const content = replyContent(body);
      if (content !== null) await reply(app, realm, bot, message, content, send);
      return;
    }
    failure = `The webhook got a response with status code *${res.status}*.` + (text ? `\nThe response contains the following payload:\n\`\`\`\n${text.slice(0, 1000)}\n\`\`\`` : '');
  } catch (err) {
    const e = app.config.outgoingWebhooksAllowPrivate ? (err as Error) : rootCause(err);
    failure = `When trying to send a request to the webhook service, an exception of type ${e.name} occurred:\n\`\`\`\n${e.message}\n\`\`\``;
  }
  await notifyOwner(app, realm, bot, message, failure, send).catch((err: unknown) => app.log.error({ err }, 'outgoing webhooks: telling the owner failed'));
}

/**
 * The POST to the bot's URL. Unless the operator allows private addresses, only public ones are reached
 * (no requests into the server's own network: SSRF), and redirects are not followed, since one could
 * point there.
 */
async function postHook(app: AppContext, url: string, request: { type: string; body: string }): Promise<{ ok: boolean; status: number; text(): Promise<string> }> {
  const init = { method: 'POST', headers: { 'content-type': request.type, 'user-agent': 'ParleyOutgoingWebhook' }, body: request.body, signal: AbortSignal.timeout(OUTGOING_WEBHOOK_TIMEOUT_MS) };
  if (app.config.outgoingWebhooksAllowPrivate) return fetch(url, init);
  checkUrlHost(new URL(url));
  return undiciFetch(url, { ...init, redirect: 'manual', dispatcher: publicOnlyAgent });
}

function genericRequest(realm: Realm, message: MessageDict, service: BotServiceRow, bot: User, trigger: string): { type: string; body: string } {
  const shown = finalizeMessage(message, { applyMarkdown: false, clientGravatar: false, allowEmptyTopic: true, emptyTopicDisplayName: emptyTopicDisplayName(realm), showEditHistory: false });
  delete shown.content_type;
  const payload = { bot_email: bot.email, bot_full_name: bot.full_name, data: message.content, trigger, token: service.token, message: { ...shown, rendered_content: message.rendered_content } };
  return { type: 'application/json', body: JSON.stringify(payload) };
}

function slackRequest(app: AppContext, realm: Realm, message: MessageDict, service: BotServiceRow, trigger: string): { type: string; body: string } | null {
  if (message.type === 'private') return null;
  const form = new URLSearchParams({
    token: service.token,
    team_id: realm.string_id,
    team_domain: realmHostName(app.config.externalUrl, realm),
    channel_id: String(message.stream_id),
    channel_name: String(message.display_recipient),
    thread_ts: String(message.timestamp),
    timestamp: String(message.timestamp),
    user_id: String(message.sender_id),
    user_name: message.sender_full_name,
    text: message.content,
    trigger_word: trigger,
    service_id: String(service.bot_id),
  });
  return { type: 'application/x-www-form-urlencoded', body: form.toString() };
}

/** The answer goes where the message was: its channel and topic, or the same direct conversation. */
async function reply(app: AppContext, realm: Realm, bot: User, message: MessageDict, content: string, send: Send): Promise<void> {
  if (message.type === 'stream') {
    await send(app, realm, bot, { kind: 'stream', stream: message.stream_id, topic: message.subject, content, readBySender: true, clientName: 'OutgoingWebhookResponse' });
    return;
  }
  const others = (message.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== bot.id);
  await send(app, realm, bot, { kind: 'private', dmTo: others.length ? others : [bot.id], content, readBySender: true, clientName: 'OutgoingWebhookResponse' });
}

async function notifyOwner(app: AppContext, realm: Realm, bot: User, message: MessageDict, failure: string, send: Send): Promise<void> {
  if (bot.bot_owner_id === null) return;
  const link = message.type === 'stream' ? `#narrow/channel/${message.stream_id}/topic/${encodeURIComponent(message.subject)}/near/${message.id}` : `#narrow/dm/${(message.display_recipient as { id: number }[]).map((r) => r.id).join(',')}/near/${message.id}`;
  const content = `[A message](${link}) to your bot @_**${bot.full_name}** triggered an outgoing webhook.\n${failure}`;
  await send(app, realm, bot, { kind: 'private', dmTo: [bot.bot_owner_id], content, readBySender: true, clientName: 'OutgoingWebhookResponse' });
}
