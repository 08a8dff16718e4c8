// Uploads an avatar as multipart (the test client's multipart form carries no files).
import http from 'node:http';
import type { ApiResponse, Client } from './server.js';

export function uploadAvatarRaw(c: Client, files: Buffer[]): Promise<ApiResponse> {
  const boundary = '----parleyavatar' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  files.forEach((data, i) => {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${i}"; filename="a${i}.png"\r\nContent-Type: image/png\r\n\r\n`), data, Buffer.from('\r\n'));
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const url = new URL(c.server.url);
  const headers: Record<string, string> = {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': String(body.length),
    authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64'),
  };
  if (c.host) headers.host = c.host;
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method: 'POST', path: '/api/v1/users/me/avatar', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}


export async function uploadAvatar(c: Client, data: Buffer): Promise<void> {
  const r = await uploadAvatarRaw(c, [data]);
  if (r.status !== 200) throw new Error(`avatar upload failed: ${r.status} ${JSON.stringify(r.body)}`);
}
