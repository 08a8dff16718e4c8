// The two outboxes: files in a directory (complete messages, no header injection) and SMTP (against a minimal fake server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { loadConfig } from '../../config.js';
import { createOutbox, FileOutbox, SmtpOutbox } from './outbox.js';

test('the file outbox writes one complete message per file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-outbox-'));
  try {
    const box = createOutbox(loadConfig({ 'data-dir': dir, 'external-url': 'https://chat.example.net' }, {}));
    assert.ok(box instanceof FileOutbox);
    await box.send({ to: 'ann@example.com', subject: 'Hello\r\nBcc: evil@example.com', text: 'line one\nline two' });
    await box.send({ to: 'bob@example.com', subject: 'Second', text: 'x' });
    const files = fs.readdirSync(path.join(dir, 'outbox')).sort();
    assert.equal(files.length, 2);
    assert.ok(files.every((f) => f.endsWith('.eml')));
    const text = fs.readFileSync(path.join(dir, 'outbox', files[0]), 'utf8');
    const [head, body] = text.split('\r\n\r\n');
    assert.match(head, /^From: Parley <noreply@chat\.example\.net>\r\nTo: ann@example\.com\r\nSubject: Hello Bcc: evil@example\.com\r\n/);
    assert.match(head, /\r\nMessage-ID: <[\w-]+@chat\.example\.net>/);
    assert.doesNotMatch(head, /^Bcc:/m);
    assert.equal(body, 'line one\r\nline two\r\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Just enough of SMTP to accept one message and report what it received. */
function fakeSmtp(): Promise<{ port: number; received: Promise<{ from: string; to: string; data: string }>; close(): void }> {
  let deliver: (m: { from: string; to: string; data: string }) => void;
  const received = new Promise<{ from: string; to: string; data: string }>((r) => (deliver = r));
  const server = net.createServer((sock) => {
    let buf = '';
    let inData = false;
    const msg = { from: '', to: '', data: '' };
    sock.write('220 fake ESMTP\r\n');
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            deliver(msg);
            sock.write('250 queued\r\n');
          } else msg.data += line + '\n';
        } else if (/^DATA/i.test(line)) {
          inData = true;
          sock.write('354 go on\r\n');
        } else if (/^QUIT/i.test(line)) {
          sock.end('221 bye\r\n');
        } else {
          if (/^MAIL FROM:/i.test(line)) msg.from = line;
          if (/^RCPT TO:/i.test(line)) msg.to = line;
          sock.write('250 ok\r\n');
        }
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, received, close: () => server.close() })),
  );
}

test('the SMTP outbox sends through the configured server', async () => {
  const smtp = await fakeSmtp();
  const config = loadConfig({ 'data-dir': os.tmpdir(), 'external-url': 'https://chat.example.net' }, { PARLEY_SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, PARLEY_MAIL_FROM: 'Chat <chat@example.net>' });
  const box = createOutbox(config);
  assert.ok(box instanceof SmtpOutbox);
  try {
    await box.send({ to: 'ann@example.com', subject: 'Confirm', text: 'Open https://chat.example.net/x?key=abc' });
    const m = await smtp.received;
    assert.match(m.from, /<chat@example\.net>/);
    assert.match(m.to, /<ann@example\.com>/);
    assert.match(m.data, /Subject: Confirm/);
    assert.match(m.data, /key=abc/);
  } finally {
    await box.close();
    smtp.close();
  }
});
