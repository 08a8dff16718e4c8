// Mobile push devices: legacy APNs / FCM token registration and the test-notification endpoints (no push service here).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, int, str } from '../core/param-types.js';
import { deviceNotRecognized, noActivePushDevice, pushNotConfigured, userPushDevices, validateAppId, validateToken } from '../lib/push-devices.js';
import { doAddPushDevice, doRemovePushDevice } from '../actions/push-devices.js';

// Length and format are checked by validateToken, with the original's messages.
const token = { token: str({ required: true }) };

const addApns = endpoint({
  summary: 'Add an APNs device token',
  deprecated: true,
  params: { ...token, appid: str({ required: true }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doAddPushDevice(req.app, req.user, 'apns', validateToken(a.token, 'apns'), validateAppId(a.appid));
    return {};
  },
});

const removeApns = endpoint({
  summary: 'Remove an APNs device token',
  deprecated: true,
  params: token,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemovePushDevice(req.app, req.user, 'apns', validateToken(a.token, 'apns'));
    return {};
  },
});

const addFcm = endpoint({
  summary: 'Add an FCM registration token',
  deprecated: true,
  params: token,
  response: Type.Object({}),
  run: async (req, a) => {
    await doAddPushDevice(req.app, req.user, 'fcm', validateToken(a.token, 'fcm'), null);
    return {};
  },
});

const removeFcm = endpoint({
  summary: 'Remove an FCM registration token',
  deprecated: true,
  params: token,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemovePushDevice(req.app, req.user, 'fcm', validateToken(a.token, 'fcm'));
    return {};
  },
});

/** The device checks come first, as in the original; a device that passes them still gets no notification: nothing here can send one. */
const testNotify = endpoint({
  summary: 'Send a test notification to mobile device(s)',
  deprecated: true,
  params: { token: str() },
  response: Type.Object({}),
  run: async (req, a) => {
    const devices = await userPushDevices(req.app.store.db, req.user.id, a.token);
    if (devices.length === 0) throw a.token !== undefined ? deviceNotRecognized() : noActivePushDevice();
    throw pushNotConfigured();
  },
});

/** E2EE devices register through the push service, which this server has none of. */
const e2eeTestNotify = endpoint({
  summary: 'Send an E2EE test notification to mobile device(s)',
  params: { device_id: int({ min: 0 }) },
  response: Type.Object({}),
  run: () => Promise.reject(pushNotConfigured()),
});

export const routes: RouteList = [
  ['users/me/apns_device_token', { POST: addApns, DELETE: removeApns }],
  ['users/me/android_gcm_reg_id', { POST: addFcm, DELETE: removeFcm }],
  ['mobile_push/test_notification', { POST: testNotify }],
  ['mobile_push/e2ee/test_notification', { POST: e2eeTestNotify }],
];
