// What a view answers with besides the JSON success envelope, and the uploaded files it reads: shared by views and lib.

/** A response written as it is (a file, a redirect), not wrapped in the success envelope. */
export class RawResponse {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** One file of a multipart request. */
export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}
