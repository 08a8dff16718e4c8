// POST /realm/test_welcome_bot_custom_message: the Welcome Bot sends the given custom text to the
// administrator asking, as a direct message, so they see what new users would get.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { systemBot } from './system-bots.js';
import { doSendMessage } from './messages-send.js';

export async function doTestWelcomeBotMessage(app: AppContext, realm: Realm, actor: User, text: string): Promise<number> {
  if (actor.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
  if (!text.trim()) throw badRequest('Message must not be empty');
  const bot = await systemBot(app, realm, 'welcome');
  const { id } = await doSendMessage(app, realm, bot, { kind: 'private', dmTo: [actor.id], content: text, readBySender: true, clientName: 'Internal' });
  return id;
}
