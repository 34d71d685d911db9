/** The client the commands share: `--url`/`--token`, else SLUICE_URL/SLUICE_TOKEN. */
import { SluiceClient } from '../client.ts';

export interface ConnectionOptions {
  url?: string;
  token?: string;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export function connect(options: ConnectionOptions): SluiceClient {
  const url = options.url ?? process.env.SLUICE_URL ?? DEFAULT_URL;
  const token = options.token ?? process.env.SLUICE_TOKEN;
  return new SluiceClient({ url, ...(token ? { token } : {}) });
}
