// Talks to the server: the public API under /api/v1 and sign-in under /accounts/, with the session's CSRF token.

let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

export type Params = Record<string, unknown>;

/** The API's encoding: strings as they are, everything else as JSON. */
function encode(params: Params): URLSearchParams {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return u;
}

async function call(method: string, url: string, params: Params, signal?: AbortSignal): Promise<any> {
  const isGet = method === 'GET';
  const body = encode(params);
  const headers: Record<string, string> = {};
  if (!isGet) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    if (csrfToken) headers['x-csrf-token'] = csrfToken;
  }
  const query = isGet && [...body.keys()].length ? `?${body}` : '';
  const res = await fetch(url + query, { method, headers, body: isGet ? undefined : body, credentials: 'same-origin', signal });
  let data: any;
  try {
    data = await res.json();
  } catch {
    throw new ApiError(`The server answered ${res.status}`, res.status, 'BAD_RESPONSE');
  }
  if (!res.ok || data.result !== 'success') throw new ApiError(data?.msg || `Error ${res.status}`, res.status, data?.code ?? 'BAD_REQUEST');
  return data;
}

export const api = (method: string, path: string, params: Params = {}, signal?: AbortSignal): Promise<any> => call(method, `/api/v1/${path}`, params, signal);
export const account = (method: string, path: string, params: Params = {}): Promise<any> => call(method, `/accounts/${path}`, params);

/** Uploads a file (POST /user_uploads) reporting progress from 0 to 1; resolves with its URL. */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<{ url: string; filename: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/user_uploads');
    xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let data: any = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        // Reported below.
      }
      if (xhr.status === 200 && data?.result === 'success') resolve({ url: data.url, filename: data.filename ?? file.name });
      else reject(new ApiError(data?.msg ?? `Upload failed (${xhr.status})`, xhr.status, data?.code ?? 'BAD_REQUEST'));
    };
    xhr.onerror = () => reject(new ApiError('Upload failed: the connection was lost', 0, 'NETWORK'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** Sends a multipart form (a custom emoji image) to the API. */
export async function postForm(path: string, form: FormData): Promise<any> {
  const res = await fetch(`/api/v1/${path}`, { method: 'POST', body: form, credentials: 'same-origin', headers: { 'x-csrf-token': csrfToken } });
  const data = await res.json().catch(() => null);
  if (!res.ok || data?.result !== 'success') throw new ApiError(data?.msg ?? `Error ${res.status}`, res.status, data?.code ?? 'BAD_REQUEST');
  return data;
}
