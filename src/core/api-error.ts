// The one error type a request can end with (its HTTP status, code and extra fields) and its envelope; below every other layer.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string = 'BAD_REQUEST',
    readonly status: number = 400,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toJSON(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

export const badRequest = (msg: string, extra: Record<string, unknown> = {}) => new ApiError(msg, 'BAD_REQUEST', 400, extra);
export const forbidden = (msg = 'Insufficient permission') => new ApiError(msg, 'BAD_REQUEST', 403);
export const unauthorized = (msg: string, code = 'UNAUTHORIZED') => new ApiError(msg, code, 401);
export const notFound = (msg = 'Not Found') => new ApiError(msg, 'NOT_FOUND', 404);
