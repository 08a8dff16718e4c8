// A raw-socket HTTP/1.1 client for tests of framing and timeouts: answers framed by Content-Length, in order, and whether the server closed.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

export class RawClient {
  readonly socket: net.Socket;
  private buf = Buffer.alloc(0);
  private waiting: { resolve: (a: RawAnswer) => void; reject: (e: Error) => void }[] = [];
  private ready: RawAnswer[] = [];
  /** Every byte the server sent, for asserting that nothing else came. */
  received = '';
  ended = false;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => {
      this.received += d.toString('latin1');
      this.buf = Buffer.concat([this.buf, d]);
      this.drain();
    });
    this.socket.on('close', () => {
      this.ended = true;
      for (const w of this.waiting.splice(0)) w.reject(new Error('the server closed the connection before answering'));
    });
    this.socket.on('error', () => {});
  }

  send(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  next(): Promise<RawAnswer> {
    const a = this.ready.shift();
    if (a) return Promise.resolve(a);
    if (this.ended) return Promise.reject(new Error('the connection is closed'));
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  closed(): Promise<void> {
    return this.ended ? Promise.resolve() : new Promise((r) => this.socket.once('close', () => r()));
  }

  private drain(): void {
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buf.length < end + 4 + length) return;
      const answer = { status: Number(head.slice(9, 12)), head, body: this.buf.toString('utf8', end + 4, end + 4 + length) };
      this.buf = this.buf.subarray(end + 4 + length);
      const w = this.waiting.shift();
      if (w) w.resolve(answer);
      else this.ready.push(answer);
    }
  }
}

export const basicAuth = (email: string, apiKey: string) => 'Basic ' + Buffer.from(`${email}:${apiKey}`).toString('base64');
