// Outgoing mail: one Outbox interface; SMTP when PARLEY_SMTP_URL is set, else files in <data dir>/outbox/.
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain-text body. */
  text: string;
  /** HTML alternative of the text (a multipart/alternative message when set). */
  html?: string;
  /** Reply-To address (missed-message emails: replying posts in the conversation). */
  replyTo?: string;
  /** Display name for the configured From address. */
  fromName?: string;
  /** Extra headers (List-Unsubscribe, Auto-Submitted…). */
  headers?: Record<string, string>;
  /** The Message-ID ("<…@host>"), when the sender keeps one across attempts; else a new one. */
  messageId?: string;
}

/** The From header: the configured address, under another display name when the message asks for one. */
export function fromAddress(configured: string, name: string | undefined): string {
  if (!name) return configured;
  const addr = /<([^>]+)>/.exec(configured)?.[1] ?? configured.trim();
  return `"${headerValue(name).replace(/["\\]/g, '')}" <${addr}>`;
}

/** Messages with HTML or extra headers are built by nodemailer's composer (multipart, encoded headers). */
const needsComposer = (m: MailMessage): boolean => m.html !== undefined || m.replyTo !== undefined || m.headers !== undefined || m.fromName !== undefined || m.messageId !== undefined;

export interface Outbox {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export function createOutbox(config: Config): Outbox {
  return config.smtpUrl ? new SmtpOutbox(config.smtpUrl, config.mailFrom) : new FileOutbox(path.join(config.dataDir, 'outbox'), config.mailFrom);
}

/** Header values come from user input (addresses, organization names): no line breaks may pass. */
const headerValue = (v: string): string => v.replace(/[\r\n]+/g, ' ').trim();

/**
 * Writes each message as one RFC 5322 file an operator can read (or hand to a mail system). The
 * file appears under its final name only when complete (written aside, then renamed).
 */
export class FileOutbox implements Outbox {
  constructor(
    readonly dir: string,
    private readonly from: string,
  ) {}

  async send(m: MailMessage): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const id = `${Date.now()}-${randomBytes(6).toString('hex')}`;
    const host = /@([^>\s]+)/.exec(this.from)?.[1] ?? 'localhost';
    if (needsComposer(m)) {
      const { default: MailComposer } = await import('nodemailer/lib/mail-composer/index.js');
      const raw = await new MailComposer({ messageId: `<${id}@${host}>`, ...nodemailerFields(this.from, m), date: new Date() }).compile().build();
      await this.write(id, raw);
      return;
    }
    const headers = [
      `From: ${headerValue(this.from)}`,
      `To: ${headerValue(m.to)}`,
      `Subject: ${headerValue(m.subject)}`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${id}@${host}>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
    ];
    const text = `${headers.join('\r\n')}\r\n\r\n${m.text.replace(/\r?\n/g, '\r\n')}\r\n`;
    await this.write(id, text);
  }

  private async write(id: string, content: string | Buffer): Promise<void> {
    const final = path.join(this.dir, `${id}.eml`);
    await fs.writeFile(`${final}.tmp`, content, { mode: 0o600 });
    await fs.rename(`${final}.tmp`, final);
  }

  async close(): Promise<void> {}
}

type Transport = { sendMail(m: Record<string, unknown>): Promise<unknown>; close(): void };

/** Sends through an SMTP server with nodemailer, loaded only when SMTP is configured. */
export class SmtpOutbox implements Outbox {
  private transport: Promise<Transport> | null = null;

  constructor(
    private readonly url: string,
    private readonly from: string,
  ) {}

  private connect(): Promise<Transport> {
    this.transport ??= import('nodemailer').then((nm) => nm.default.createTransport(this.url) as unknown as Transport);
    return this.transport;
  }

  async send(m: MailMessage): Promise<void> {
    const t = await this.connect();
    await t.sendMail(nodemailerFields(this.from, m));
  }

  async close(): Promise<void> {
    if (this.transport) (await this.transport).close();
  }
}

/** A message as nodemailer's options (header values stripped of line breaks). */
function nodemailerFields(from: string, m: MailMessage): Record<string, unknown> {
  return {
    from: fromAddress(from, m.fromName),
    to: headerValue(m.to),
    subject: headerValue(m.subject),
    text: m.text,
    ...(m.html !== undefined ? { html: m.html } : {}),
    ...(m.replyTo !== undefined ? { replyTo: headerValue(m.replyTo) } : {}),
    ...(m.headers ? { headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, headerValue(v)])) } : {}),
    ...(m.messageId !== undefined ? { messageId: headerValue(m.messageId) } : {}),
  };
}
