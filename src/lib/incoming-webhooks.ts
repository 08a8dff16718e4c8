// Incoming webhooks: the integrations this server offers (register's realm_incoming_webhook_bots, with
// their config_options and url_options descriptors), who a webhook URL's api_key names, and the
// generic JSON integration's message.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';

export interface IntegrationDescriptor {
  name: string;
  display_name: string;
  all_event_types: string[] | null;
  config_options: { key: string; label: string; validator: string }[];
  url_options: { key: string; label: string; input_type: string }[];
}

/** The incoming-webhook integrations served under /api/v1/external/. */
export const INTEGRATIONS: readonly IntegrationDescriptor[] = [
  // The original's "json" integration: any JSON payload, shown pretty-printed in a code block.
  { name: 'json', display_name: 'JSON formatter', all_event_types: null, config_options: [], url_options: [] },
];

const invalidKey = () => new ApiError('Invalid API key', 'INVALID_API_KEY', 401);

/** The active user of this organization whose API key the webhook URL carries (a bot's, usually). */
export async function webhookUser(app: AppContext, realm: Realm, apiKey: string): Promise<User> {
  const user = apiKey ? await app.caches.userByApiKey(apiKey) : undefined;
  if (!user || user.api_key !== apiKey) throw invalidKey();
  if (user.realm_id !== realm.id) throw new ApiError('Account is not associated with this subdomain', 'INVALID_API_KEY', 401);
  if (!user.is_active) throw new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401);
  return user;
}

/** The JSON integration's message: the payload indented by two, non-ASCII escaped as the original prints it. */
export function jsonWebhookContent(body: string | undefined): string {
  let payload: unknown;
  try {
    payload = JSON.parse(body ?? '');
  } catch {
    throw badRequest('Malformed JSON');
  }
  const pretty = JSON.stringify(payload, null, 2).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `\`\`\`json\n${pretty}\n\`\`\``;
}
