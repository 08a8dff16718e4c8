// The route table: every endpoint under /api/v1 comes from one view module's `routes` list.
import { Router, type RouteList } from './router.js';
import { endpoint, RawResponse } from './endpoint.js';
import { openApiDocument } from './openapi.js';
import { Type } from '../core/param-types.js';
import { SERVICE_VERSION } from '../models/limits.js';
import { routes as eventRoutes } from '../views/events.js';
import { routes as userRoutes } from '../views/users.js';
import { routes as streamRoutes } from '../views/streams.js';
import { routes as subscriptionRoutes } from '../views/subscriptions.js';
import { routes as subscriptionPropertyRoutes } from '../views/subscription-properties.js';
import { routes as messageRoutes } from '../views/messages.js';
import { routes as flagRoutes } from '../views/message-flags.js';
import { routes as reactionRoutes } from '../views/reactions.js';
import { routes as settingsRoutes } from '../views/settings.js';
import { routes as typingRoutes } from '../views/typing.js';
import { routes as topicRoutes } from '../views/topics.js';
import { routes as reminderRoutes } from '../views/reminders.js';
import { routes as scheduledMessageRoutes } from '../views/scheduled-messages.js';
import { routes as attachmentRoutes } from '../views/attachments.js';
import { routes as messageExtraRoutes } from '../views/message-extras.js';
import { routes as multiuseInviteRoutes } from '../views/invitations-multiuse.js';
import { routes as presenceRoutes } from '../views/presence.js';
import { routes as realmEmojiRoutes } from '../views/realm-emoji.js';
import { routes as linkifierRoutes } from '../views/linkifiers.js';
import { routes as draftRoutes } from '../views/drafts.js';
import { routes as snippetRoutes } from '../views/saved-snippets.js';
import { routes as navigationViewRoutes } from '../views/navigation-views.js';
import { routes as alertWordRoutes } from '../views/alert-words.js';
import { routes as invitationRoutes } from '../views/invitations.js';
import { routes as realmExportRoutes } from '../views/realm-exports.js';
import { routes as channelEmailRoutes } from '../views/channel-email.js';
import { routes as videoCallRoutes } from '../views/video-calls.js';
import { routes as hostedVideoCallRoutes } from '../views/video-calls-hosted.js';
import { routes as webexVideoCallRoutes } from '../views/video-calls-webex.js';
import { routes as pushDeviceRoutes } from '../views/push-devices.js';
import { routes as pushE2eeRoutes } from '../views/push-e2ee.js';
import { routes as clientDeviceRoutes } from '../views/client-devices.js';
import { routes as userGroupRoutes } from '../views/user-groups.js';
import { routes as userAdminRoutes } from '../views/user-admin.js';
import { routes as serverSettingsRoutes } from '../views/server-settings.js';
import { routes as botRoutes } from '../views/bots.js';
import { routes as uploadRoutes } from '../views/uploads.js';
import { routes as avatarRoutes } from '../views/avatars.js';
import { routes as emojiDataRoutes } from '../views/emoji-data.js';
import { routes as botStorageRoutes } from '../views/bot-storage.js';
import { routes as userStatusRoutes } from '../views/user-status.js';
import { routes as mutedUserRoutes } from '../views/muted-users.js';
import { routes as accountRoutes } from '../views/account.js';
import { routes as webhookRoutes } from '../views/webhooks.js';
import { routes as channelAdminRoutes } from '../views/channel-admin.js';
import { routes as defaultStreamRoutes } from '../views/default-streams.js';
import { routes as channelFolderRoutes } from '../views/channel-folders.js';
import { routes as realmDomainRoutes } from '../views/realm-domains.js';
import { routes as realmPlaygroundRoutes } from '../views/realm-playgrounds.js';
import { routes as profileDataRoutes } from '../views/profile-data.js';
import { routes as realmUserDefaultRoutes } from '../views/realm-user-defaults.js';
import { routes as realmSettingRoutes } from '../views/realm-settings.js';
import { routes as welcomeBotRoutes } from '../views/welcome-bot.js';
import { routes as imageProxyRoutes } from '../views/image-proxy.js';

/** Kept for views written before the type moved to the router (views no longer import this file). */
export type { RouteList };

/** Every route, in matching order (earlier entries win on ambiguity). */
export function allRoutes(): RouteList {
  return [...viewRoutes(), ...documentRoutes()];
}

function viewRoutes(): RouteList {
  return [
    eventRoutes,
    userRoutes,
    streamRoutes,
    subscriptionRoutes,
    subscriptionPropertyRoutes,
    messageRoutes,
    flagRoutes,
    reactionRoutes,
    settingsRoutes,
    typingRoutes,
    topicRoutes,
    reminderRoutes,
    presenceRoutes,
    realmEmojiRoutes,
    linkifierRoutes,
    draftRoutes,
    snippetRoutes,
    navigationViewRoutes,
    alertWordRoutes,
    userGroupRoutes,
    invitationRoutes,
    channelEmailRoutes,
    videoCallRoutes,
    hostedVideoCallRoutes,
    webexVideoCallRoutes,
    pushDeviceRoutes,
    pushE2eeRoutes,
    clientDeviceRoutes,
    userAdminRoutes,
    serverSettingsRoutes,
    botRoutes,
    avatarRoutes,
    uploadRoutes,
    emojiDataRoutes,
    realmExportRoutes,
    botStorageRoutes,
    userStatusRoutes,
    mutedUserRoutes,
    accountRoutes,
    webhookRoutes,
    channelAdminRoutes,
    defaultStreamRoutes,
    channelFolderRoutes,
    realmDomainRoutes,
    realmPlaygroundRoutes,
    profileDataRoutes,
    realmUserDefaultRoutes,
    realmSettingRoutes,
    welcomeBotRoutes,
    imageProxyRoutes,
    scheduledMessageRoutes,
    attachmentRoutes,
    messageExtraRoutes,
    multiuseInviteRoutes,
  ].flat();
}

/** The OpenAPI document's text, built once at start (buildRouter): the routes never change while serving. */
let documentText: string | null = null;

function openApiText(): string {
  return (documentText ??= JSON.stringify(openApiDocument(allRoutes(), SERVICE_VERSION)));
}

/** GET /openapi.json: the document of every route, this one included. */
function documentRoutes(): RouteList {
  const getDocument = endpoint({
    summary: 'The OpenAPI description of this API',
    auth: 'none',
    response: Type.Object({}),
    raw: 'application/json',
    run: async () => {
      return new RawResponse(200, openApiText(), JSON_TYPE);
    },
  });
  return [['openapi.json', { GET: getDocument }]];
}

const JSON_TYPE: Record<string, string> = Object.freeze({ 'content-type': 'application/json' });

export function buildRouter(): Router {
  const router = new Router();
  for (const [pattern, methods] of allRoutes()) router.add(pattern, methods);
  openApiText();
  return router;
}
