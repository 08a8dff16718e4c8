// Calls on operator-hosted services: GET /calls/bigbluebutton/create (+ its signed join link) and POST /calls/nextcloud_talk/create.
import type { RouteList } from '../http/router.js';
import { NON_API_ROUTE } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { RawResponse } from '../core/results.js';
import { badRequest } from '../core/api-error.js';
import { Type, bool, int, str } from '../core/param-types.js';
import { bbbChecksum, createMeeting, createQuery, joinUrl, newMeetingId, type BbbServer } from '../lib/video/bigbluebutton.js';
import { createTalkRoom } from '../lib/video/nextcloud-talk.js';
import type { Config } from '../config.js';

function bbbServer(c: Config): BbbServer {
  if (!c.bbbUrl || !c.bbbSecret) throw badRequest('BigBlueButton is not configured.');
  return { url: c.bbbUrl, secret: c.bbbSecret };
}

/**
 * Like the original, the answer is a link to this server's join step rather than to BBB itself: the message
 * carrying it is read by many users, and each must enter under their own name, the creator as moderator.
 * The link carries the `create` call's checksum, so it cannot be altered (BBB refuses a wrong checksum).
 */
const createBbb = endpoint({
  summary: 'Create BigBlueButton video call',
  params: { meeting_name: str({ required: true, maxLength: 256 }), voice_only: bool({ default: false }) },
  response: Type.Object({ url: Type.String() }),
  run: async (req, a) => {
    const server = bbbServer(req.app.config);
    const m = { meetingId: newMeetingId(), name: a.meeting_name, voiceOnly: a.voice_only, moderator: req.user.id };
    const checksum = bbbChecksum(server.secret, 'create', createQuery(m));
    const q = new URLSearchParams({ meeting_id: m.meetingId, name: m.name, voice_only: String(m.voiceOnly), moderator: String(m.moderator), checksum });
    return { url: `/calls/bigbluebutton/join?${q.toString()}` };
  },
});

/** Opened by a browser with the web session: creates the meeting on first use, then sends the user into it. */
const joinBbb = endpoint({
  summary: 'Join a BigBlueButton video call',
  params: {
    meeting_id: str({ required: true, maxLength: 256 }),
    name: str({ required: true, maxLength: 256 }),
    voice_only: bool({ default: false }),
    moderator: int({ required: true, min: 0 }),
    checksum: str({ required: true, maxLength: 128 }),
  },
  response: Type.Never(),
  raw: 'text/html',
  run: async (req, a) => {
    const server = bbbServer(req.app.config);
    if (!/^[0-9a-f]{64}$/.test(a.checksum)) throw badRequest('Invalid checksum');
    await createMeeting(server, { meetingId: a.meeting_id, name: a.name, voiceOnly: a.voice_only, moderator: a.moderator }, a.checksum);
    const location = joinUrl(server, a.meeting_id, req.user.full_name, a.moderator === req.user.id);
    return new RawResponse(302, '', { location });
  },
});

const createTalk = endpoint({
  summary: 'Create Nextcloud Talk video call',
  params: { room_name: str({ required: true, maxLength: 255 }) },
  response: Type.Object({ url: Type.String() }),
  run: async (req, a) => {
    const c = req.app.config;
    if (!c.nextcloudTalkUrl || !c.nextcloudTalkUser || !c.nextcloudTalkPassword) throw badRequest('Nextcloud Talk is not configured.');
    return { url: await createTalkRoom({ url: c.nextcloudTalkUrl, user: c.nextcloudTalkUser, password: c.nextcloudTalkPassword }, a.room_name) };
  },
});

export const routes: RouteList = [
  ['calls/bigbluebutton/create', { GET: createBbb }],
  [`${NON_API_ROUTE}/calls/bigbluebutton/join`, { GET: joinBbb }],
  ['calls/nextcloud_talk/create', { POST: createTalk }],
];
