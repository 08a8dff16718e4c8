// A real SMTP receiver for tests (smtp-server): collects each delivered mail parsed by mailparser.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/context.js';
import { startTestServer, type TestServer } from './server.js';

export interface Received {
  envelopeTo: string[];
  mail: ParsedMail;
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  url: string;
  received: Received[];
  /** Mails whose envelope names this recipient. */
  to(address: string): Received[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: Received[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no TLS certificate, no login.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), mail, raw: raw.toString('utf8') });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    to: (address) => received.filter((r) => r.envelopeTo.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A test server that sends its mail to a fresh receiver; close() stops both. */
export async function startMailTestServer(clock: Clock): Promise<{ server: TestServer; smtp: SmtpReceiver; close: () => Promise<void> }> {
  const smtp = await startSmtpReceiver();
  const server = await startTestServer({ clock, env: { PARLEY_SMTP_URL: smtp.url } });
  return {
    server,
    smtp,
    close: async () => {
      await server.close();
      await smtp.close();
    },
  };
}
