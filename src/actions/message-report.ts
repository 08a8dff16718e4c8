// Reporting a message: the notification bot posts the report to the organization's moderation request channel.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { accessMessage, streamById } from '../lib/messages/access.js';
import { realmSettings } from '../lib/realm-settings.js';
import { MAX_REPORT_DESCRIPTION_LENGTH, REPORT_MESSAGE_TYPES } from '../models/report-types.js';
import { MAX_TOPIC_LENGTH } from '../models/limits.js';
import { doSendMessage } from './messages-send.js';
import { notificationBot } from './system-bots.js';

export interface ReportInput {
  messageId: number;
  reportType: string;
  description: string;
}

const quote = (text: string) => text.split('\n').map((l) => `> ${l}`).join('\n');

export async function doReportMessage(app: AppContext, realm: Realm, reporter: User, input: ReportInput): Promise<void> {
  const type = REPORT_MESSAGE_TYPES.find((t) => t.key === input.reportType);
  if (!type) throw badRequest('Invalid report_type');
  const description = input.description.trim();
  if (type.key === 'other' && !description) throw badRequest('An explanation is required.');
  if ([...description].length > MAX_REPORT_DESCRIPTION_LENGTH) throw badRequest(`description is too long (limit: ${MAX_REPORT_DESCRIPTION_LENGTH} characters)`);
  const channelId = Number(realmSettings(realm).moderation_request_channel_id ?? -1);
  const { message, stream, sender, channel } = await app.store.read(async (tx) => {
    const accessed = await accessMessage(tx, reporter, input.messageId);
    const author = await tx.selectFrom('users').select(['id', 'full_name']).where('id', '=', accessed.message.sender_id).executeTakeFirstOrThrow();
    const target = channelId > 0 ? await streamById(tx, realm.id, channelId) : undefined;
    return { ...accessed, sender: author, channel: target };
  });
  // Checked after the access check, so the answer says nothing about a message the reporter cannot see.
  if (!channel || channel.is_archived) throw badRequest('Moderation request channel must be specified to enable message reporting.');
  if (message.sender_id === reporter.id) throw badRequest('You cannot report your own messages.');
  const where = stream ? `#**${stream.name}>${message.topic}@${message.id}**` : `a [direct message](#narrow/near/${message.id})`;
  const lines = [`@_**${reporter.full_name}|${reporter.id}** reported ${where} sent by @_**${sender.full_name}|${sender.id}**.`, '', `- **Reason**: ${type.name}`];
  if (description) lines.push(`- **Notes**:`, '', quote(description));
  // A fence longer than any backtick run in the message, so its own code blocks stay inside.
  const fence = '`'.repeat(Math.max(3, ...[...message.content.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  lines.push('', '**Message**:', `${fence}quote`, message.content, fence);
  const topic = [...`${sender.full_name}'s moderation requests`].slice(0, MAX_TOPIC_LENGTH).join('');
  const bot = await notificationBot(app, realm);
  await doSendMessage(app, realm, bot, {
    kind: 'stream',
    stream: channel.id,
    topic,
    content: lines.join('\n'),
    readBySender: true,
    clientName: 'Internal',
    internal: true,
  });
}
