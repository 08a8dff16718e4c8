// Typing notifications as the spec describes: "start" when typing begins and again every wait
// period while it goes on, "stop" after a pause in typing or when the message is sent.
import { api } from './api.js';

export class TypingReporter {
  private to: Record<string, unknown> | null = null;
  private lastStart = 0;
  private stopTimer: ReturnType<typeof setTimeout> | null = null;

  typed(to: Record<string, unknown>, wait: { typingStartWaitMs: number; typingStopWaitMs: number }): void {
    const key = JSON.stringify(to);
    if (this.to && JSON.stringify(this.to) !== key) this.stop();
    const now = Date.now();
    if (!this.to || now - this.lastStart >= wait.typingStartWaitMs) {
      this.to = to;
      this.lastStart = now;
      this.send('start', to);
    }
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.stopTimer = setTimeout(() => this.stop(), wait.typingStopWaitMs);
  }

  stop(): void {
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.stopTimer = null;
    if (!this.to) return;
    this.send('stop', this.to);
    this.to = null;
  }

  private send(op: 'start' | 'stop', to: Record<string, unknown>): void {
    const params = to.type === 'direct' ? { op, type: 'direct', to: to.to } : { op, type: 'stream', stream_id: to.to, topic: to.topic };
    void api('POST', 'typing', params).catch(() => undefined);
  }
}
