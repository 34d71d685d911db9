/**
 * The one error the client throws. `code` is the API's error code, or NETWORK_ERROR when no
 * answer came, or BAD_RESPONSE when the answer was not the API's.
 */
import type { ApiErrorCode } from './types.ts';

export type SluiceErrorCode = ApiErrorCode | 'NETWORK_ERROR' | 'BAD_RESPONSE';

export class SluiceApiError extends Error {
  constructor(
    readonly code: SluiceErrorCode,
    message: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    readonly details: Record<string, unknown> = {},
    readonly requestId: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SluiceApiError';
  }
}

export function isSluiceApiError(err: unknown, code?: SluiceErrorCode): err is SluiceApiError {
  return err instanceof SluiceApiError && (code === undefined || err.code === code);
}

function isErrorEnvelope(
  value: unknown,
): value is { error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> } } {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** The error of an answer that is not 2xx: the API's envelope when it sent one. */
export async function errorOfResponse(response: Response): Promise<SluiceApiError> {
  const requestId = response.headers.get('x-request-id');
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorEnvelope(body)) {
    const { code, message, details } = body.error;
    return new SluiceApiError(code, message, response.status, details ?? {}, requestId);
  }
  return new SluiceApiError(
    'BAD_RESPONSE',
    `HTTP ${response.status} without an error body: ${text.slice(0, 200)}`,
    response.status,
    {},
    requestId,
  );
}
