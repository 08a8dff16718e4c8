// Register state for subscription and stream (implemented with the channels area).
import type { StateFetcher } from './context.js';

export const streamStates: StateFetcher[] = [];
