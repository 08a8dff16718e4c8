// GET, POST and DELETE /users/me/subscriptions.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { oneOf, vIntOrStrList, vStrList } from '../core/params.js';
import type { GroupSettingValue } from '../lib/groups.js';
import { STREAM_PERMISSION_NAMES, vGroupSetting } from '../lib/streams/permissions.js';
import { includeSubscribersParam, looseString, retentionParam, vSubscriptionList } from '../lib/streams/params.js';
import { userSubscriptions } from '../lib/streams/read.js';
import { doSubscribe } from '../actions/subscriptions-add.js';
import { doUnsubscribe } from '../actions/subscriptions-remove.js';
import { TOPICS_POLICIES } from '../actions/streams-create.js';

const getSubscriptions = authed(async (req) => {
  const include = includeSubscribersParam(req.params);
  const subscriptions = await req.app.store.read((tx) => userSubscriptions(tx, req.user, include));
  return { subscriptions };
});

const subscribe = authed(async (req) => {
  const p = req.params;
  const subscriptions = p.reqJson('subscriptions', vSubscriptionList);
  const principals = p.json('principals', vIntOrStrList) ?? null;
  const groupSettings: Record<string, GroupSettingValue> = {};
  for (const name of STREAM_PERMISSION_NAMES) {
    const v = p.json(name, vGroupSetting);
    if (v !== undefined) groupSettings[name] = v;
  }
  const topicsPolicy = looseString(p, 'topics_policy');
  const result = await doSubscribe(req.app, req.realm, req.user, {
    subscriptions,
    principals,
    authorizationErrorsFatal: p.bool('authorization_errors_fatal', true),
    announce: p.bool('announce', false),
    inviteOnly: p.bool('invite_only', false),
    isWebPublic: p.bool('is_web_public', false),
    historyPublicToSubscribers: p.optBool('history_public_to_subscribers'),
    messageRetentionDays: retentionParam(p),
    topicsPolicy: topicsPolicy === undefined ? undefined : oneOf(topicsPolicy, TOPICS_POLICIES, 'topics_policy'),
    groupSettings,
    isDefaultStream: p.bool('is_default_stream', false),
  });
  return { ...result };
});

const unsubscribe = authed(async (req) => {
  const p = req.params;
  const names = p.reqJson('subscriptions', vStrList);
  const principals = p.json('principals', vIntOrStrList) ?? null;
  return doUnsubscribe(req.app, req.realm, req.user, { names, principals });
});

export const routes: RouteList = [['users/me/subscriptions', { GET: getSubscriptions, POST: subscribe, DELETE: unsubscribe }]];
