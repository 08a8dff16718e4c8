// Scenario sizes for the full run and for --quick (same code, small numbers).

export interface Sizes {
  /** Connections and seconds of each autocannon run (the ceiling uses the same). */
  connections: number;
  loadSeconds: number;
  /** Subscribers of the send channel, each with a long-polled queue. */
  sendSubscribers: number;
  fixedRate: number;
  /** Listener counts reported as delivery_p99_ms_100, _1000 and _10000, and messages sent to each. */
  fanout: [number, number, number];
  fanoutMessages: [number, number, number];
  /** Uncounted deliveries before each listener count's timed messages, at least (at most 100 messages). */
  fanoutWarmupDeliveries: number;
  /** Users of the fan-out organization (every listener and long-poll belongs to one of them). */
  fanUsers: number;
  holdTarget: number;
  historyMessages: number;
  historyChannels: number;
  historyTopics: number;
  historySubscribers: number;
  fetchRequests: number;
  regUsers: number;
  regChannels: number;
  regSubsPerUser: number;
  registerRequests: number;
  /** The unread-backlog member: unread channel messages over channels × topics, then unread DMs and mentions. */
  backlogMessages: number;
  backlogChannels: number;
  backlogTopics: number;
  backlogPersonal: number;
  renderRequests: number;
}

export const FULL: Sizes = {
  connections: 10,
  loadSeconds: 10,
  sendSubscribers: 100,
  fixedRate: 500,
  fanout: [100, 1000, 10000],
  fanoutMessages: [30, 15, 6],
  fanoutWarmupDeliveries: 20_000,
  fanUsers: 10000,
  holdTarget: 20000,
  historyMessages: 1_000_000,
  historyChannels: 10,
  historyTopics: 50,
  historySubscribers: 3,
  fetchRequests: 300,
  regUsers: 1000,
  regChannels: 100,
  regSubsPerUser: 20,
  registerRequests: 60,
  backlogMessages: 50_000,
  backlogChannels: 50,
  backlogTopics: 500,
  backlogPersonal: 1000,
  renderRequests: 400,
};

export const QUICK: Sizes = {
  connections: 10,
  loadSeconds: 2,
  sendSubscribers: 20,
  fixedRate: 500,
  fanout: [5, 10, 20],
  fanoutMessages: [5, 5, 5],
  fanoutWarmupDeliveries: 100,
  fanUsers: 50,
  holdTarget: 500,
  historyMessages: 10_000,
  historyChannels: 4,
  historyTopics: 10,
  historySubscribers: 3,
  fetchRequests: 40,
  regUsers: 50,
  regChannels: 10,
  regSubsPerUser: 5,
  registerRequests: 10,
  backlogMessages: 2000,
  backlogChannels: 5,
  backlogTopics: 20,
  backlogPersonal: 100,
  renderRequests: 40,
};
