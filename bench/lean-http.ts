// A minimal keep-alive HTTP/1.1 client over one socket, for the long-poll children: the load tool must cost far less than the server it measures.
import net from 'node:net';
import { nowMs } from './api.js';

export interface LeanResponse {
  status: number;
  body: string;
  /** nowMs() when the whole answer had arrived, before anyone parsed it. */
  receivedAt: number;
}

interface Pending {
  resolve: (r: LeanResponse) => void;
  reject: (e: Error) => void;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * One connection, one request at a time (a long-poll occupies its connection, as with a real
 * client). It reads what a Parley answer is: a status line, headers with Content-Length, a body.
 * Why not undici: per answer, undici's request() cost the listening children ~2× the server's own
 * CPU on the same two cores (its dispatch() ~1×), so the clients, not the server, set how soon the
 * last listener had its event. autocannon avoids that the same way, with its own small parser.
 */
export class LeanConnection {
  private readonly socket: net.Socket;
  private readonly hostHeader: string;
  private pending: Pending | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Parsed head of the answer being read: status and body length, or null while headers are incomplete. */
  private head: { status: number; length: number; bodyStart: number } | null = null;
  private failure: Error | null = null;

  constructor(url: string) {
    const u = new URL(url);
    this.hostHeader = u.host;
    this.socket = net.connect(Number(u.port), u.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  /** Sends one request; headers are written as given (a `host` entry replaces the default Host). */
  request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<LeanResponse> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.pending) return Promise.reject(new Error('a request is already in flight on this connection'));
    let text = `${method} ${path} HTTP/1.1\r\n`;
    if (!('host' in headers)) text += `Host: ${this.hostHeader}\r\n`;
    for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
    if (body !== undefined) text += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
    text += '\r\n';
    if (body !== undefined) text += body;
    return new Promise<LeanResponse>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(text);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (!this.head) {
      const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      this.chunks = [all];
      const end = all.indexOf(HEADER_END);
      if (end < 0) return;
      const headText = all.toString('latin1', 0, end);
      const status = Number(headText.slice(9, 12));
      const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
      if (!lengthMatch) return this.fail(new Error(`answer without Content-Length: ${headText.slice(0, 200)}`));
      this.head = { status, length: Number(lengthMatch[1]), bodyStart: end + 4 };
    }
    const { status, length, bodyStart } = this.head;
    if (this.buffered < bodyStart + length) return;
    const receivedAt = nowMs();
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    if (all.length > bodyStart + length) return this.fail(new Error('bytes after the answer (nothing was asked)'));
    const body = all.toString('utf8', bodyStart, bodyStart + length);
    this.chunks = [];
    this.buffered = 0;
    this.head = null;
    const pending = this.pending;
    this.pending = null;
    pending?.resolve({ status, body, receivedAt });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const pending = this.pending;
    this.pending = null;
    pending?.reject(err);
    if (!this.socket.destroyed) this.socket.destroy();
  }
}
