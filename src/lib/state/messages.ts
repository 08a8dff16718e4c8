// Register state for message, update_message_flags and recent conversations (implemented with the messages area).
import type { StateFetcher } from './context.js';

export const messageStates: StateFetcher[] = [];
