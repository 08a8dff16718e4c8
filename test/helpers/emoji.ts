// Uploads custom emoji images through POST /realm/emoji/{name}.
import type { ApiResponse, Client } from './server.js';
import { postFiles } from './multipart.js';

export function uploadEmojiRaw(c: Client, name: string, files: { data: Buffer; filename?: string }[]): Promise<ApiResponse> {
  return postFiles(
    c,
    `realm/emoji/${encodeURIComponent(name)}`,
    files.map((f) => ({ data: f.data, filename: f.filename ?? 'e.png' })),
  );
}

export async function uploadEmoji(c: Client, name: string, data: Buffer): Promise<void> {
  const r = await uploadEmojiRaw(c, name, [{ data }]);
  if (r.status !== 200) throw new Error(`emoji upload failed: ${r.status} ${JSON.stringify(r.body)}`);
}
