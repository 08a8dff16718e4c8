// POST /realm/test_welcome_bot_custom_message.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, str } from '../core/param-types.js';
import { doTestWelcomeBotMessage } from '../actions/welcome-bot.js';

const testMessage = endpoint({
  summary: 'Test welcome bot custom message',
  params: { welcome_message_custom_text: str({ required: true, maxLength: 8000 }) },
  response: Type.Object({ message_id: Type.Integer() }),
  run: async (req, a) => ({ message_id: await doTestWelcomeBotMessage(req.app, req.realm, req.user, a.welcome_message_custom_text) }),
});

export const routes: RouteList = [['realm/test_welcome_bot_custom_message', { POST: testMessage }]];
