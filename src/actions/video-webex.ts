// Webex calls: completing a user's OAuth authorization, creating meetings with their token (refreshed when
// expired, forgotten when Webex refuses it) and the has_webex_token events that tell their clients.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { writeWithEvents, to } from '../events/publish.js';
import { WebexTokenRejected, createWebexMeeting, exchangeCode, invalidToken, notConfigured, refreshToken, type WebexApp, type WebexToken } from '../lib/video/webex.js';
import type { Config } from '../config.js';

/** The configured Webex integration, or null. */
export function webexApp(config: Pick<Config, 'webexClientId' | 'webexClientSecret' | 'webexApiUrl' | 'externalUrl'>): WebexApp | null {
  if (!config.webexClientId || !config.webexClientSecret) return null;
  return { clientId: config.webexClientId, clientSecret: config.webexClientSecret, apiUrl: config.webexApiUrl, redirectUri: `${config.externalUrl.replace(/\/$/, '')}/calls/webex/complete` };
}

export function requireWebex(app: AppContext): WebexApp {
  const w = webexApp(app.config);
  if (!w) throw notConfigured();
  return w;
}

/** Stores (or replaces) the user's token; the event goes out only when they had none. */
async function saveToken(app: AppContext, realm: Realm, user: User, token: WebexToken): Promise<void> {
  const row = { access_token: token.accessToken, refresh_token: token.refreshToken, expires_at: token.expiresAt };
  await writeWithEvents(app, realm.id, async (tx) => {
    const had = await tx.selectFrom('webex_tokens').select('user_id').where('user_id', '=', user.id).executeTakeFirst();
    if (had) await tx.updateTable('webex_tokens').set(row).where('user_id', '=', user.id).execute();
    else await tx.insertInto('webex_tokens').values({ user_id: user.id, ...row, created_at: app.clock.now() }).execute();
    return !had;
  }, (added) => (added ? [to([user.id], { type: 'has_webex_token', value: true })] : []));
}

/** Forgets a token Webex no longer accepts, as the original does, so the client starts the authorization again. */
async function forgetToken(app: AppContext, realm: Realm, user: User): Promise<void> {
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => Number((await tx.deleteFrom('webex_tokens').where('user_id', '=', user.id).executeTakeFirst()).numDeletedRows),
    (n) => (n ? [to([user.id], { type: 'has_webex_token', value: false })] : []),
  );
}

/** GET /calls/webex/complete: the code Webex sent back becomes the user's stored token. */
export async function doCompleteWebexAuthorization(app: AppContext, realm: Realm, user: User, code: string): Promise<void> {
  const webex = requireWebex(app);
  await saveToken(app, realm, user, await exchangeCode(webex, code, app.clock.now()));
}

/** POST /calls/webex/create: a meeting link made with the user's token. */
export async function doCreateWebexCall(app: AppContext, realm: Realm, user: User): Promise<string> {
  const webex = requireWebex(app);
  const row = await app.store.db.selectFrom('webex_tokens').selectAll().where('user_id', '=', user.id).executeTakeFirst();
  if (!row) throw invalidToken();
  const now = app.clock.now();
  let token: WebexToken = { accessToken: row.access_token, refreshToken: row.refresh_token, expiresAt: row.expires_at };
  // Refresh a little before the end, so the token does not expire between the check and Webex's.
  if (token.expiresAt !== null && token.expiresAt <= now + 30) {
    const fresh = await refreshToken(webex, token, now);
    if (!fresh) {
      await forgetToken(app, realm, user);
      throw invalidToken();
    }
    token = fresh;
    await saveToken(app, realm, user, token);
  }
  try {
    return await createWebexMeeting(webex, token.accessToken, now);
  } catch (e) {
    if (!(e instanceof WebexTokenRejected)) throw e;
    await forgetToken(app, realm, user);
    throw invalidToken();
  }
}
