// Video calls: a user's authorization with the configured provider (has_videoprovider_token events) and meeting creation.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { videoProvider, type VideoProvider } from '../lib/video/providers.js';
import { writeWithEvents, to } from '../events/publish.js';

export const notConfigured = () => badRequest('Video calls are not configured on this server.');

function requireProvider(app: AppContext): VideoProvider {
  const p = videoProvider(app.config);
  if (!p) throw notConfigured();
  return p;
}

/** Records the user's authorization; the event tells their clients a call can now be created. */
export async function doAuthorizeVideoCalls(app: AppContext, realm: Realm, user: User): Promise<void> {
  const provider = requireProvider(app);
  const token = await provider.authorize(user.id);
  await writeWithEvents(app, realm.id, async (tx) => {
    const old = await tx.selectFrom('video_call_tokens').select('provider').where('user_id', '=', user.id).executeTakeFirst();
    await tx.deleteFrom('video_call_tokens').where('user_id', '=', user.id).execute();
    await tx.insertInto('video_call_tokens').values({ user_id: user.id, provider: provider.name, token, created_at: app.clock.now() }).execute();
    return old?.provider !== provider.name;
  }, (changed) => (changed ? [to([user.id], { type: 'has_videoprovider_token', value: true })] : []));
}

/** Forgets the user's authorization (also without a configured provider, so stale tokens can be dropped). */
export async function doRevokeVideoCalls(app: AppContext, realm: Realm, user: User): Promise<void> {
  const name = videoProvider(app.config)?.name;
  await writeWithEvents(app, realm.id, async (tx) => {
    const old = await tx.selectFrom('video_call_tokens').select('provider').where('user_id', '=', user.id).executeTakeFirst();
    await tx.deleteFrom('video_call_tokens').where('user_id', '=', user.id).execute();
    return old !== undefined && old.provider === name;
  }, (had) => (had ? [to([user.id], { type: 'has_videoprovider_token', value: false })] : []));
}

/** POST /calls/videoprovider/create: a fresh meeting URL, for a user who completed the authorization. */
export async function doCreateVideoCall(app: AppContext, user: User): Promise<string> {
  const provider = requireProvider(app);
  const row = await app.store.db.selectFrom('video_call_tokens').select(['provider', 'token']).where('user_id', '=', user.id).executeTakeFirst();
  if (!row || row.provider !== provider.name) throw badRequest('You have not authorized the video-call provider yet: authorize it first (POST /calls/videoprovider/authorize).');
  return provider.createMeeting(row.token);
}
