/** HTTP over fetch: the base URL, the bearer token, the error envelope and the retries. */
import { errorOfResponse, SluiceApiError } from './errors.ts';
import { DEFAULT_RETRY, isRetryable, type RetryPolicy, retryDelayMs } from './retry.ts';

export interface TransportOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  token?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

export interface Request {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined | null>;
  json?: unknown;
  body?: Uint8Array;
  contentType?: string;
  accept?: string;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type Outcome =
  | { response: Response; error?: never; retryAfter?: never }
  | { response?: never; error: SluiceApiError; retryAfter: string | null };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

export class Transport {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof fetch;

  constructor(options: TransportOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.token = options.token;
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** The 2xx answer of `request`, after the retries its failures allow. */
  async send(request: Request): Promise<Response> {
    const repeatable = request.method === 'GET' || request.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.once(request);
      if (outcome.response) return outcome.response;
      const last = attempt + 1 >= this.policy.attempts;
      if (last || !isRetryable(outcome.error, repeatable)) throw outcome.error;
      await sleep(retryDelayMs(this.policy, attempt, outcome.retryAfter), request.signal);
    }
  }

  async json<T>(request: Request): Promise<T> {
    const response = await this.send({ ...request, accept: request.accept ?? 'application/json' });
    return (await response.json()) as T;
  }

  private async once(request: Request): Promise<Outcome> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (request.accept) headers.accept = request.accept;
    if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
    let body: Uint8Array | string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.body) {
      body = request.body;
      headers['content-type'] = request.contentType ?? 'application/octet-stream';
    }
    let response: Response;
    try {
      response = await this.fetchImpl(this.urlOf(request), {
        method: request.method,
        headers,
        body,
        signal: request.signal,
      });
    } catch (err) {
      if (request.signal?.aborted) throw err;
      const reason =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      const error = new SluiceApiError(
        'NETWORK_ERROR',
        `${request.method} ${request.path}: ${reason}`,
        0,
        {},
        null,
        {
          cause: err,
        },
      );
      return { error, retryAfter: null };
    }
    if (response.ok) return { response };
    return { error: await errorOfResponse(response), retryAfter: response.headers.get('retry-after') };
  }

  private urlOf(request: Request): string {
    const url = new URL(this.url + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.href;
  }
}
