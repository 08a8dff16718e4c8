// What a view answers with besides the JSON success envelope, and the uploaded files it reads: shared by views and lib.

/** A response written as it is (a file, a redirect), not wrapped in the success envelope. */
export class RawResponse {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A file of a multipart body, as written to disk while it arrived (removed once the request is answered). */
export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  size: number;
  /** Where the bytes are until the request is answered. */
  path: string;
  /** The bytes (the file is at most the route's limit). */
  read(): Promise<Buffer>;
}
