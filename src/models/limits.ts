// Server-wide limits and protocol constants reported to clients.
export const FEATURE_LEVEL = 497;
export const SERVICE_VERSION = '11.0-parley-0.1';
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_MESSAGES_PER_FETCH = 5000;
export const MAX_USER_GROUP_NAME_LENGTH = 100;
export const LONGPOLL_TIMEOUT_SECS = 90;
export const TYPING_STARTED_WAIT_MS = 10000;
export const TYPING_STOPPED_WAIT_MS = 5000;
export const TYPING_STARTED_EXPIRY_MS = 15000;
export const MAX_UNREAD_MESSAGES = 50000;
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';
