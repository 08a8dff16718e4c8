// The email gateway's listener (smtp-server, SMTP or LMTP): refuses unknown addresses at RCPT, posts each accepted mail.
import type { AppContext } from '../context.js';
import type { SMTPServer as SMTPServerType, SMTPServerSession, SMTPServerDataStream } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../core/api-error.js';
import { doPostInboundMail, Refusal, resolveGatewayRecipient, type GatewayTarget } from '../actions/email-gateway.js';

export interface EmailGateway {
  port: number;
  stop(): Promise<void>;
}

/** An SMTP reply with a code: 550 for refused addresses, 552 for oversized mail, 451 for our own failures. */
function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * Why a mail is ignored (accepted and dropped, so no one bounces it back): bounces have a null
 * sender or are delivery reports; automatic replies say so (RFC 3834), our own notifications
 * included, which is what stops a loop between a channel address and a notification.
 */
function ignoredBecause(mailFrom: string, headers: Map<string, unknown>, contentType: string): string | null {
  if (!mailFrom) return 'bounce (null sender)';
  if (/^multipart\/report/i.test(contentType)) return 'delivery report';
  const auto = String(headers.get('auto-submitted') ?? 'no').toLowerCase();
  if (auto !== 'no') return `auto-submitted: ${auto}`;
  const precedence = String(headers.get('precedence') ?? '').toLowerCase();
  if (['bulk', 'junk', 'auto_reply'].includes(precedence)) return `precedence: ${precedence}`;
  if (/^(mailer-daemon|postmaster)@/i.test(mailFrom)) return 'bounce (mailer daemon)';
  return null;
}

/** Whether the mail itself has a text/plain part (a mail without any Content-Type is plain text). */
function hasTextPart(raw: Buffer): boolean {
  const text = raw.toString('latin1');
  const headEnd = text.search(/\r?\n\r?\n/);
  const head = headEnd < 0 ? text : text.slice(0, headEnd);
  return !/^content-type:/im.test(head) || /^content-type:\s*text\/plain/im.test(text);
}

export async function startEmailGateway(app: AppContext): Promise<EmailGateway | null> {
  const listen = app.config.emailGatewayListen;
  if (!listen) return null;
  const { SMTPServer } = await import('smtp-server');
  const { simpleParser } = await import('mailparser');
  const log = app.log.child({ component: 'email-gateway' });
  const maxBytes = app.config.emailGatewayMaxMib * 1024 * 1024;
  // Targets resolved at RCPT time, by session: the DATA stage posts to exactly those.
  const targets = new WeakMap<SMTPServerSession, GatewayTarget[]>();
  const refuse = (reason: string, session: SMTPServerSession, extra: Record<string, unknown> = {}) =>
    log.info({ reason, from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', remote: session.remoteAddress, ...extra }, 'email gateway: refused');

  const server: SMTPServerType = new SMTPServer({
    lmtp: app.config.emailGatewayLmtp,
    // Meant to sit behind the operator's MTA on a private address: it does TLS and authentication.
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    size: maxBytes,
    banner: 'Parley email gateway',
    logger: false,
    onMailFrom(_address, session, callback) {
      // Each mail of a session has its own recipients.
      targets.delete(session);
      callback();
    },
    onRcptTo(address, session, callback) {
      resolveGatewayRecipient(app, address.address).then(
        (target) => {
          targets.set(session, [...(targets.get(session) ?? []), target]);
          callback();
        },
        (err: unknown) => {
          if (err instanceof Refusal) {
            refuse(err.message, session, { to: address.address });
            callback(smtpError(550, `5.1.1 <${address.address}>: no such address here`));
            return;
          }
          log.error({ err, to: address.address }, 'email gateway: recipient lookup failed');
          callback(smtpError(451, '4.3.0 try again later'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void (async () => {
          const to = session.envelope.rcptTo.map((r) => r.address);
          if (stream.sizeExceeded) {
            refuse('message too large', session, { to, limit_bytes: maxBytes });
            return callback(smtpError(552, `5.3.4 message larger than ${app.config.emailGatewayMaxMib} MiB`));
          }
          const raw = Buffer.concat(chunks);
          const mail = await simpleParser(raw, { skipImageLinks: true });
          const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          const contentType = String((mail.headers.get('content-type') as { value?: string } | undefined)?.value ?? '');
          const ignored = ignoredBecause(mailFrom, mail.headers, contentType);
          if (ignored) {
            log.info({ reason: ignored, from: mailFrom, to }, 'email gateway: ignored');
            return callback();
          }
          const inbound = {
            subject: mail.subject ?? '',
            // mailparser writes a text version of HTML-only mail: the HTML then converts better.
            text: hasTextPart(raw) ? mail.text : undefined,
            html: mail.html,
            attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content, size: a.size })),
          };
          for (const target of targets.get(session) ?? []) {
            try {
              const id = await doPostInboundMail(app, target, inbound);
              log.info({ message_id: id, kind: target.kind, from: mailFrom }, 'email gateway: posted');
            } catch (err) {
              if (err instanceof ApiError) {
                refuse(`not posted: ${err.message}`, session, { to });
                return callback(smtpError(err.message.includes('larger than') ? 552 : 550, `5.7.1 ${err.message}`));
              }
              throw err;
            }
          }
          callback();
        })().catch((err: unknown) => {
          log.error({ err }, 'email gateway: delivery failed');
          callback(smtpError(451, '4.3.0 try again later'));
        });
      });
    },
  });
  server.on('error', (err) => log.error({ err }, 'email gateway: listener error'));
  const sep = listen.lastIndexOf(':');
  const host = listen.slice(0, sep).replace(/^\[|\]$/g, '');
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(Number(listen.slice(sep + 1)), host, () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  log.info({ host, port, lmtp: app.config.emailGatewayLmtp }, 'email gateway listening');
  return {
    port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
