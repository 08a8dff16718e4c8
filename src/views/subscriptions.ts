// GET, POST and DELETE /users/me/subscriptions.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { oneOf as oneOfWords, vIntOrStrList, vStrList } from '../core/params.js';
import { INT32_MAX, Type, bool, json, loose } from '../core/param-types.js';
import { custom } from '../core/param-custom.js';
import type { GroupSettingValue } from '../lib/groups.js';
import { STREAM_PERMISSION_NAMES } from '../lib/streams/permissions.js';
import { groupSettingParam, includeSubscribers, looseText, retentionDays, vSubscriptionList } from '../lib/streams/params.js';
import { userSubscriptions } from '../lib/streams/read.js';
import { doSubscribe } from '../actions/subscriptions-add.js';
import { doUnsubscribe } from '../actions/subscriptions-remove.js';
import { TOPICS_POLICIES } from '../actions/streams-create.js';

/** Users named by ID or by email (the original's principals). */
const principals = json(Type.Union([Type.Array(Type.Integer({ minimum: 0, maximum: INT32_MAX })), Type.Array(Type.String())]), { validate: vIntOrStrList });

const NameMap = Type.Record(Type.String(), Type.Array(Type.String()));

const getSubscriptions = endpoint({
  summary: 'Get subscribed channels',
  params: { include_subscribers: includeSubscribers() },
  response: Type.Object({ subscriptions: Type.Array(loose(Type.Object({ stream_id: Type.Integer(), name: Type.String() }))) }),
  run: async (req, a) => {
    const subscriptions = await req.app.store.read((tx) => userSubscriptions(tx, req.user, a.include_subscribers));
    return { subscriptions };
  },
});

/** The channel permission settings a new channel may be given, each a JSON group-setting value. */
const permissionParams = Object.fromEntries(STREAM_PERMISSION_NAMES.map((name) => [name, groupSettingParam()])) as Record<string, ReturnType<typeof groupSettingParam>>;

const subscribe = endpoint({
  summary: 'Subscribe to a channel',
  params: {
    subscriptions: json(Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()) })), { required: true, validate: vSubscriptionList }),
    principals,
    ...permissionParams,
    authorization_errors_fatal: bool({ default: true }),
    announce: bool({ default: false }),
    invite_only: bool({ default: false }),
    is_web_public: bool({ default: false }),
    history_public_to_subscribers: bool(),
    message_retention_days: retentionDays(),
    // Read as sent (JSON-quoted or bare) and checked after the others, as the original does.
    topics_policy: custom(Type.Union(TOPICS_POLICIES.map((w) => Type.Literal(w))), (text) => looseText(text)),
    is_default_stream: bool({ default: false }),
  },
  response: Type.Object({ subscribed: NameMap, already_subscribed: NameMap, unauthorized: Type.Optional(Type.Array(Type.String())) }),
  run: async (req, a) => {
    const groupSettings: Record<string, GroupSettingValue> = {};
    for (const name of STREAM_PERMISSION_NAMES) {
      const v = (a as Record<string, unknown>)[name] as GroupSettingValue | undefined;
      if (v !== undefined) groupSettings[name] = v;
    }
    const result = await doSubscribe(req.app, req.realm, req.user, {
      subscriptions: a.subscriptions,
      principals: a.principals ?? null,
      authorizationErrorsFatal: a.authorization_errors_fatal,
      announce: a.announce,
      inviteOnly: a.invite_only,
      isWebPublic: a.is_web_public,
      historyPublicToSubscribers: a.history_public_to_subscribers,
      messageRetentionDays: a.message_retention_days,
      topicsPolicy: a.topics_policy === undefined ? undefined : oneOfWords(a.topics_policy, TOPICS_POLICIES, 'topics_policy'),
      groupSettings,
      isDefaultStream: a.is_default_stream,
    });
    return { ...result };
  },
});

const unsubscribe = endpoint({
  summary: 'Unsubscribe from a channel',
  params: { subscriptions: json(Type.Array(Type.String()), { required: true, validate: vStrList }), principals },
  response: Type.Object({ removed: Type.Array(Type.String()), not_removed: Type.Array(Type.String()) }),
  run: async (req, a) => doUnsubscribe(req.app, req.realm, req.user, { names: a.subscriptions, principals: a.principals ?? null }),
});

export const routes: RouteList = [['users/me/subscriptions', { GET: getSubscriptions, POST: subscribe, DELETE: unsubscribe }]];
