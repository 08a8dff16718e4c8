// Running totals that /metrics reports, kept as plain numbers by the code that does the work (no metric object on its path).

export class OpsCounters {
  /** Message sends whose transaction committed (every send through doSendMessage: the API, reminders, invitation notices). */
  sendCommits = 0;
}
