// A user's settings for their channels: POST /users/me/subscriptions/properties (bulk) and
// PATCH /users/me/subscriptions/{stream_id} (one channel).
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { toInt } from '../core/params.js';
import { doUpdateSubscriptionProperties, type SubscriptionChange } from '../actions/subscription-properties.js';

/** subscription_data: a JSON list of {stream_id, property, value}, checked as the original does. */
function vSubscriptionData(value: unknown, name: string): SubscriptionChange[] {
  if (!Array.isArray(value)) throw badRequest(`${name} is not a list`);
  return value.map((item, i) => {
    const at = `${name}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest(`${at} is not a dict`);
    const d = item as Record<string, unknown>;
    for (const k of ['stream_id', 'property', 'value']) if (!(k in d)) throw badRequest(`${k} key is missing from ${at}`);
    if (typeof d.stream_id !== 'number' || !Number.isSafeInteger(d.stream_id)) throw badRequest(`${at}["stream_id"] is not an integer`);
    if (typeof d.property !== 'string') throw badRequest(`${at}["property"] is not a string`);
    if (typeof d.value !== 'string' && typeof d.value !== 'boolean') throw badRequest(`${at}["value"] is not an allowed_type`);
    return { streamId: d.stream_id, property: d.property, value: d.value };
  });
}

const updateMany = authed(async (req) => {
  const changes = req.params.reqJson('subscription_data', vSubscriptionData);
  await doUpdateSubscriptionProperties(req.app, req.realm, req.user, changes);
  return {};
});

const updateOne = authed(async (req) => {
  const p = req.params;
  const streamId = toInt(req.pathParams.stream_id, 'stream_id');
  const property = p.reqStr('property');
  const raw = p.reqStr('value');
  // The value arrives JSON-encoded (true, "#ff0000"); a bare color string is accepted as well.
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    /* a plain string */
  }
  await doUpdateSubscriptionProperties(req.app, req.realm, req.user, [{ streamId, property, value }]);
  return {};
});

export const routes: RouteList = [
  ['users/me/subscriptions/properties', { POST: updateMany }],
  ['users/me/subscriptions/{stream_id:int}', { PATCH: updateOne }],
];
