// Logged-in mobile devices: POST /register_client_device and POST /remove_client_device.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, int } from '../core/param-types.js';
import { doRegisterClientDevice, doRemoveClientDevice } from '../actions/push-devices.js';

const registerDevice = endpoint({
  summary: 'Register a logged-in device',
  response: Type.Object({ device_id: Type.Integer() }),
  run: async (req) => ({ device_id: await doRegisterClientDevice(req.app, req.realm, req.user) }),
});

const removeDevice = endpoint({
  summary: 'Remove a registered device',
  params: { device_id: int({ required: true, min: 0 }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveClientDevice(req.app, req.realm, req.user, a.device_id);
    return {};
  },
});

export const routes: RouteList = [
  ['register_client_device', { POST: registerDevice }],
  ['remove_client_device', { POST: removeDevice }],
];
