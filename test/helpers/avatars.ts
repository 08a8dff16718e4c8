// Uploads avatars through POST /users/me/avatar.
import type { ApiResponse, Client } from './server.js';
import { postFiles } from './multipart.js';

export function uploadAvatarRaw(c: Client, files: Buffer[]): Promise<ApiResponse> {
  return postFiles(
    c,
    'users/me/avatar',
    files.map((data, i) => ({ data, filename: `a${i}.png`, contentType: 'image/png' })),
  );
}

export async function uploadAvatar(c: Client, data: Buffer): Promise<void> {
  const r = await uploadAvatarRaw(c, [data]);
  if (r.status !== 200) throw new Error(`avatar upload failed: ${r.status} ${JSON.stringify(r.body)}`);
}
