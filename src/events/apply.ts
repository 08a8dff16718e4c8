// Applies events to a register state, as a client would: the reference for the events-consistency
// invariant (register state + events = a fresh register). Pure: no database, no I/O.

import { applyAlertWords, applyDrafts, applyDraftsSetting, applyNavigationView, applySavedSnippets } from './apply-personal.js';
import { byNumber, ORDER, type ApplyContext, type Event, type State } from './apply-util.js';
import { applyDeleteMessage, applyFlags, applyMessage, applyUpdateMessage } from './apply-messages.js';
import { applyUserGroup } from './apply-groups.js';
import { applyDevice } from './apply-devices.js';
import { applyVideoToken, applyWebexToken } from './apply-video.js';
import { applyCustomProfileFields, applyRealmUserAdmin } from './apply-user-admin.js';
import { unknownUser } from '../models/unknown-user.js';
import { applyMutedUsers, applyUserStatus, applyUserStatusOnRealmUser } from './apply-people.js';
import { applyChannelAdmin } from './apply-channel-admin.js';
import { applyScheduledMessages } from './apply-scheduled.js';
import { applyPresence, applyRealmEmoji, applyReminders, applyUserTopic, recountUnread } from './apply-realm.js';
import { applyRealmSettings } from './apply-realm-settings.js';

export { ORDER, type ApplyContext } from './apply-util.js';

export function applyEvents(state: State, events: Event[], ctx: ApplyContext): State {
  for (const e of events) applyEvent(state, e, ctx);
  return state;
}

export function applyEvent(state: State, e: Event, ctx: ApplyContext): void {
  applyOne(state, e, ctx);
  // Muting (channels, topics) changes the unread total without touching the unread lists.
  if (state.unread_msgs) recountUnread(state);
}

function applyOne(state: State, e: Event, ctx: ApplyContext): void {
  switch (e.type) {
    case 'heartbeat':
      return;
    case 'message':
      return applyMessage(state, e, ctx);
    case 'update_message':
      return applyUpdateMessage(state, e);
    case 'delete_message':
      return applyDeleteMessage(state, e);
    case 'update_message_flags':
      return applyFlags(state, e, ctx);
    case 'reaction':
      // Register state carries no messages, so reactions change nothing a client keeps from it.
      return;
    case 'realm_user':
      applyUserStatusOnRealmUser(state, e);
      if (applyRealmUserAdmin(state, e, ctx)) return;
      return applyRealmUser(state, e, ctx);
    case 'realm_bot':
      return applyRealmBot(state, e);
    case 'stream':
      return applyStream(state, e);
    case 'user_group':
      return applyUserGroup(state, e);
    case 'subscription':
      return applySubscription(state, e, ctx);
    case 'user_settings':
      if (e.op === 'update' && state.user_settings) state.user_settings[e.property] = e.value;
      if (e.op === 'update' && e.property === 'receives_typing_notifications' && 'receives_typing_notifications' in state) state.receives_typing_notifications = e.value;
      applyDraftsSetting(state, e);
      return;
    case 'drafts':
      return applyDrafts(state, e);
    case 'saved_snippets':
      return applySavedSnippets(state, e);
    case 'navigation_view':
      return applyNavigationView(state, e);
    case 'alert_words':
      return applyAlertWords(state, e);
    case 'user_topic':
      return applyUserTopic(state, e);
    case 'muted_topics':
      if (state.muted_topics) state.muted_topics = e.muted_topics;
      return;
    case 'typing':
    case 'typing_edit_message':
      // Typing is momentary: nothing of it is in the register state.
      return;
    case 'scheduled_messages':
      return applyScheduledMessages(state, e);
    case 'reminders':
      return applyReminders(state, e);
    case 'presence':
      return applyPresence(state, e);
    case 'realm':
      return applyRealmSettings(state, e);
    case 'realm_emoji':
      return applyRealmEmoji(state, e);
    case 'realm_linkifiers':
      if (state.realm_linkifiers) state.realm_linkifiers = e.realm_linkifiers;
      return;
    case 'attachment':
      // A user's files are fetched with GET /attachments; register carries none of them.
      return;
    case 'invites_changed':
      // Only a signal to fetch GET /invites again; register carries no invitations.
      return;
    case 'realm_export':
      // The list of exports is fetched with GET /export/realm; register carries none of it.
      return;
    case 'has_videoprovider_token':
      return applyVideoToken(state, e);
    case 'has_webex_token':
      return applyWebexToken(state, e);
    case 'device':
      return applyDevice(state, e);
    case 'custom_profile_fields':
      return applyCustomProfileFields(state, e);
    case 'user_status':
      return applyUserStatus(state, e);
    case 'muted_users':
      return applyMutedUsers(state, e);
    default:
      if (applyChannelAdmin(state, e)) return;
      throw new Error(`applyEvent: unknown event type ${e.type}`);
  }
}

// ---- users ----

/** Register's top-level fields about the user themselves that realm_user updates also change. */
const OWN_FIELDS = ['full_name', 'delivery_email', 'avatar_source', 'avatar_url', 'avatar_url_medium'];

function applyRealmUser(state: State, e: Event, ctx: ApplyContext): void {
  if (e.op === 'update' && e.person.user_id === ctx.userId) {
    for (const f of OWN_FIELDS) if (f in e.person && f in state) state[f] = e.person[f];
    if (e.person.new_email !== undefined && 'email' in state) state.email = e.person.new_email;
  }
  if (!state.realm_users) return;
  if (e.op === 'add') {
    // Also sent when a restricted user gains access to someone, who may be deactivated.
    dropUser(state, e.person.user_id);
    const list = e.person.is_active === false && state.realm_non_active_users ? state.realm_non_active_users : state.realm_users;
    list.push(e.person);
    list.sort(ORDER.users);
    return;
  }
  if (e.op === 'update') {
    const u = [...state.realm_users, ...(state.realm_non_active_users ?? [])].find((x: any) => x.user_id === e.person.user_id);
    if (!u) return;
    // User objects carry no avatar source or medium URL; clients computing third-party avatars keep null
    // (or none), which they can do only from a public address (API email equal to the real one).
    const { new_email, avatar_url_medium: _medium, avatar_source, ...rest } = e.person;
    if (ctx.clientGravatar && avatar_source === 'G' && 'avatar_url' in rest && u.email === u.delivery_email) {
      delete rest.avatar_url;
      if ('avatar_url' in u) u.avatar_url = null;
    }
    Object.assign(u, rest);
    if (new_email !== undefined) u.email = new_email;
    return;
  }
  if (e.op === 'remove') {
    // A restricted user lost access: clients without user_list_incomplete keep the "Unknown user" placeholder.
    dropUser(state, e.person.user_id);
    if (ctx.capabilities?.user_list_incomplete !== true) {
      state.realm_users.push(unknownUser(e.person.user_id));
      state.realm_users.sort(ORDER.users);
    }
  }
}

function dropUser(state: State, userId: number): void {
  state.realm_users = state.realm_users.filter((u: any) => u.user_id !== userId);
  if (state.realm_non_active_users) state.realm_non_active_users = state.realm_non_active_users.filter((u: any) => u.user_id !== userId);
}

function applyRealmBot(state: State, e: Event): void {
  if (!state.realm_bots) return;
  const id = e.bot.user_id;
  if (e.op === 'add') {
    state.realm_bots = state.realm_bots.filter((b: any) => b.user_id !== id);
    state.realm_bots.push(e.bot);
    state.realm_bots.sort(ORDER.users);
  } else if (e.op === 'update') {
    const b = state.realm_bots.find((x: any) => x.user_id === id);
    if (b) Object.assign(b, e.bot);
  } else if (e.op === 'remove' || e.op === 'delete') {
    state.realm_bots = state.realm_bots.filter((b: any) => b.user_id !== id);
  }
}

// ---- channels and subscriptions ----

/** Fields a stream update carries besides property and value (rendered_description; the privacy trio). */
const STREAM_UPDATE_EXTRAS = ['rendered_description', 'history_public_to_subscribers', 'is_web_public'];

function applyStream(state: State, e: Event): void {
  if (e.op === 'create') {
    if (state.streams) {
      for (const s of e.streams) {
        state.streams = state.streams.filter((x: any) => x.stream_id !== s.stream_id);
        state.streams.push(s);
      }
      state.streams.sort(ORDER.streams);
    }
    if (state.never_subscribed) {
      const known = new Set([...(state.subscriptions ?? []), ...(state.unsubscribed ?? []), ...state.never_subscribed].map((s: any) => s.stream_id));
      for (const s of e.streams) {
        if (!known.has(s.stream_id)) state.never_subscribed.push({ ...s, ...(state.__include_subscribers ? { subscribers: [] } : {}) });
      }
      state.never_subscribed.sort(ORDER.streams);
    }
    return;
  }
  if (e.op === 'update') {
    for (const list of [state.streams, state.subscriptions, state.unsubscribed, state.never_subscribed]) {
      const s = list?.find((x: any) => x.stream_id === e.stream_id);
      if (!s) continue;
      s[e.property] = e.value;
      // Fields that change with the property travel in the same event.
      for (const f of STREAM_UPDATE_EXTRAS) if (f in e) s[f] = e[f];
    }
    return;
  }
  if (e.op === 'delete') {
    const ids = new Set(e.streams.map((s: any) => s.stream_id));
    for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) {
      if (state[key]) state[key] = state[key].filter((s: any) => !ids.has(s.stream_id));
    }
  }
}

function applySubscription(state: State, e: Event, _ctx: ApplyContext): void {
  if (!state.subscriptions) return;
  switch (e.op) {
    case 'add': {
      const ids = new Set(e.subscriptions.map((s: any) => s.stream_id));
      state.subscriptions = state.subscriptions.filter((s: any) => !ids.has(s.stream_id));
      state.subscriptions.push(
        ...e.subscriptions.map((s: any) => {
          const copy = structuredClone(s);
          // Clients that did not ask for subscriber lists do not keep them.
          if (!state.__include_subscribers) delete copy.subscribers;
          return copy;
        }),
      );
      state.subscriptions.sort(ORDER.subscriptions);
      // The subscription carries the channel's current subscriber count; the channel list follows it.
      for (const sub of e.subscriptions) {
        const stream = state.streams?.find((x: any) => x.stream_id === sub.stream_id);
        if (stream && typeof sub.subscriber_count === 'number') stream.subscriber_count = sub.subscriber_count;
      }
      if (state.unsubscribed) state.unsubscribed = state.unsubscribed.filter((s: any) => !ids.has(s.stream_id));
      if (state.never_subscribed) state.never_subscribed = state.never_subscribed.filter((s: any) => !ids.has(s.stream_id));
      return;
    }
    case 'remove': {
      const ids = new Set(e.subscriptions.map((s: any) => s.stream_id));
      const removed = state.subscriptions.filter((s: any) => ids.has(s.stream_id));
      state.subscriptions = state.subscriptions.filter((s: any) => !ids.has(s.stream_id));
      if (state.unsubscribed) {
        for (const s of removed) {
          // The peer_remove that follows updates subscribers and subscriber_count.
          state.unsubscribed.push(s);
        }
        state.unsubscribed.sort(ORDER.subscriptions);
      }
      return;
    }
    case 'update': {
      const s = state.subscriptions.find((x: any) => x.stream_id === e.stream_id);
      if (s) s[e.property] = e.value;
      if (s && e.property === 'in_home_view') s.is_muted = !e.value;
      if (s && e.property === 'is_muted') s.in_home_view = !e.value;
      return;
    }
    case 'peer_add':
    case 'peer_remove': {
      const streamIds = new Set<number>(e.stream_ids);
      const users: number[] = e.user_ids;
      const lists = [state.subscriptions, state.unsubscribed, state.never_subscribed, state.streams].filter(Boolean);
      for (const list of lists) {
        for (const s of list) {
          if (!streamIds.has(s.stream_id)) continue;
          if (Array.isArray(s.subscribers)) {
            const set = new Set<number>(s.subscribers);
            const before = set.size;
            for (const u of users) {
              if (e.op === 'peer_add') set.add(u);
              else set.delete(u);
            }
            s.subscribers = [...set].sort(byNumber);
            if (typeof s.subscriber_count === 'number') s.subscriber_count += set.size - before;
          } else if (typeof s.subscriber_count === 'number') {
            s.subscriber_count += e.op === 'peer_add' ? users.length : -users.length;
          }
        }
      }
      return;
    }
  }
}

