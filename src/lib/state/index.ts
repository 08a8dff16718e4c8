// Every register-state fetcher, in the order their fields are assembled.
import type { StateFetcher } from './context.js';
import { remindersState } from './reminders.js';
import { presenceState } from './presence.js';
import { realmEmojiState, realmLinkifiersState } from './realm-emoji.js';
import { realmState } from './realm.js';
import { realmUserState } from './users.js';
import { userSettingsState } from './settings.js';
import { userGroupState } from './groups.js';
import { realmBotState } from './bots.js';
import { streamStates } from './streams.js';
import { messageStates } from './messages.js';
import { userTopicState } from './topics.js';
import { personalStates } from './personal.js';
import { videoCallState } from './video-calls.js';
import { devicesState } from './devices.js';
import { customProfileFieldsState } from './profile-fields.js';
import { peopleStates } from './people.js';
import { channelAdminStates } from './channel-admin.js';
import { scheduledMessagesState } from './scheduled-messages.js';
import { serverConstantsState } from './server-constants.js';
import { realmExtrasState } from './realm-extras.js';
import { absentFeatureStates } from './features-absent.js';

export const STATE_FETCHERS: readonly StateFetcher[] = [
  realmState,
  realmUserState,
  realmBotState,
  userSettingsState,
  userGroupState,
  ...streamStates,
  ...messageStates,
  userTopicState,
  remindersState,
  presenceState,
  realmEmojiState,
  realmLinkifiersState,
  ...personalStates,
  videoCallState,
  devicesState,
  customProfileFieldsState,
  ...peopleStates,
  ...channelAdminStates,
  scheduledMessagesState,
  serverConstantsState,
  realmExtrasState,
  ...absentFeatureStates,
];

/** Event types whose state register can fetch (unknown requested types are ignored, as the spec says). */
export const FETCHABLE_TYPES: ReadonlySet<string> = new Set(STATE_FETCHERS.flatMap((f) => f.types));
