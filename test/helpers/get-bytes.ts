// A GET of any server path on a node (a file, an avatar, an emoji image), answered as bytes, with a user's credentials or none.
import http from 'node:http';

export function getBytes(node: { url: string }, urlPath: string, c: { email: string; apiKey: string } | null): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  const u = new URL(node.url);
  const headers: Record<string, string> = c ? { authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') } : {};
  return new Promise((resolve, reject) => {
    http
      .get({ hostname: u.hostname, port: u.port, path: urlPath, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
