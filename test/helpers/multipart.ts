// Sends files as multipart/form-data to an API path (the test client's multipart form carries no files).
import http from 'node:http';
import type { ApiResponse, Client } from './server.js';

export interface FilePart {
  data: Buffer;
  filename?: string;
  contentType?: string;
}

export function postFiles(c: Client, apiPath: string, files: FilePart[]): Promise<ApiResponse> {
  const boundary = '----parleyfiles' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  files.forEach((f, i) => {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"; filename="${f.filename ?? `f${i}.png`}"\r\nContent-Type: ${f.contentType ?? 'application/octet-stream'}\r\n\r\n`;
    parts.push(Buffer.from(head), f.data, Buffer.from('\r\n'));
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
    const req = http.request({ hostname: url.hostname, port: url.port, method: 'POST', path: `/api/v1/${apiPath}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
