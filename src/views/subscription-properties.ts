// A user's settings for their channels: POST /users/me/subscriptions/properties (bulk) and
// PATCH /users/me/subscriptions/{stream_id} (one channel).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { INT32_MAX, INT32_MIN, Type, json, str } from '../core/param-types.js';
import { custom } from '../core/param-custom.js';
import { streamIdPath } from '../lib/streams/params.js';
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

const updateMany = endpoint({
  summary: 'Update subscription settings',
  params: {
    subscription_data: json(
      Type.Array(Type.Object({ stream_id: Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }), property: Type.String(), value: Type.Union([Type.String(), Type.Boolean()]) })),
      { required: true, validate: vSubscriptionData },
    ),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateSubscriptionProperties(req.app, req.realm, req.user, a.subscription_data);
    return {};
  },
});

/** The value arrives JSON-encoded (true, "#ff0000"); a bare color string is accepted as well. */
function looseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const updateOne = endpoint({
  summary: 'Update a subscription setting',
  path: streamIdPath,
  params: {
    property: str({ required: true }),
    value: custom(Type.Union([Type.Boolean(), Type.String(), Type.Integer()]), looseValue, { required: true, description: 'JSON-encoded, or a bare string.' }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateSubscriptionProperties(req.app, req.realm, req.user, [{ streamId: a.stream_id, property: a.property, value: a.value }]);
    return {};
  },
});

export const routes: RouteList = [
  ['users/me/subscriptions/properties', { POST: updateMany }],
  ['users/me/subscriptions/{stream_id:int}', { PATCH: updateOne }],
];
