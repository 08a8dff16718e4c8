// E2EE push registration: POST /mobile_push/register (a user's device) and POST /remotes/push/e2ee/register (a push service's
// own endpoint). Both need a push notification service, which this server neither runs nor uses.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, int, oneOf, str } from '../core/param-types.js';
import { pushNotConfigured } from '../lib/push-devices.js';

/** Checked before the answer so a malformed request still gets the original's validation error. */
const registerDevice = endpoint({
  summary: 'Register E2EE push device',
  params: {
    device_id: int({ required: true, min: 0 }),
    push_key_id: int({ min: 0, max: 2 ** 32 - 1 }),
    push_key: str(),
    token_kind: oneOf(['fcm', 'apns']),
    token_id: str(),
    bouncer_public_key: str(),
    encrypted_push_registration: str(),
  },
  response: Type.Object({}),
  run: () => Promise.reject(pushNotConfigured()),
});

const bouncerRegister = endpoint({
  summary: 'Register E2EE push device with the push notification service',
  auth: 'none',
  params: {
    realm_uuid: str({ required: true }),
    token_id: str({ required: true }),
    encrypted_push_registration: str({ required: true }),
    bouncer_public_key: str({ required: true }),
  },
  response: Type.Object({}),
  run: () => Promise.reject(pushNotConfigured()),
});

export const routes: RouteList = [
  ['mobile_push/register', { POST: registerDevice }],
  ['remotes/push/e2ee/register', { POST: bouncerRegister }],
];
