// Long-poll connections that are streams of shared HTTP/2 sessions (prior knowledge, cleartext), for polls beyond one socket each.
import http2 from 'node:http2';
import { nowMs } from './api.js';
import type { LeanResponse } from './lean-http.js';

/** One session carries this many pollers' streams (the server allows 1,000). */
export const STREAMS_PER_SESSION = 100;

/** Hands out sessions to pollers, opening a new one every STREAMS_PER_SESSION pollers. */
export class H2SessionPool {
  private current: http2.ClientHttp2Session | null = null;
  private users = 0;
  private readonly sessions: http2.ClientHttp2Session[] = [];

  constructor(private readonly url: string) {}

  connection(): H2Connection {
    if (!this.current || this.users >= STREAMS_PER_SESSION) {
      const session = http2.connect(this.url);
      // A failed session fails its streams' requests; the error itself needs no other handler.
      session.on('error', () => {});
      this.sessions.push(session);
      this.current = session;
      this.users = 0;
    }
    this.users++;
    return new H2Connection(this.current);
  }

  destroyAll(): void {
    for (const s of this.sessions) s.destroy();
  }
}

/** The same face as LeanConnection: one request at a time, here as one stream after another. */
export class H2Connection {
  constructor(private readonly session: http2.ClientHttp2Session) {}

  request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<LeanResponse> {
    const out: http2.OutgoingHttpHeaders = { ':method': method, ':path': path };
    for (const name in headers) {
      // HTTP/2 names the organization's host in :authority.
      if (name === 'host') out[':authority'] = headers[name];
      else out[name] = headers[name];
    }
    return new Promise<LeanResponse>((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.session.request(out);
      } catch (err) {
        reject(err as Error);
        return;
      }
      let status = 0;
      let ended = false;
      let receivedAt = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        ended = true;
        receivedAt = nowMs();
      });
      // 'close' comes last, after 'end' or after a reset; a promise settles once, so 'error' may reject first.
      stream.on('error', reject);
      stream.on('close', () => {
        if (ended && status) resolve({ status, body: Buffer.concat(chunks).toString('utf8'), receivedAt });
        else reject(new Error(`stream closed without a whole answer (code ${stream.rstCode})`));
      });
      stream.end(body);
    });
  }

  /** The pool closes the sessions; one poller leaving does not end the others' streams. */
  destroy(): void {}
}
