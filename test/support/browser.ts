/**
 * Headless Chromium for browser tests: Debian's `chromium` package driven by playwright-core
 * (which downloads no browser of its own), with a fresh profile per launch. The machine has
 * no network beyond loopback, so background networking is off and any request that would
 * leave 127.0.0.1 (bull-board links a web font) is aborted in the browser instead.
 */
import { existsSync } from 'node:fs';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { createTempDir } from './temp-dir.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why browser tests cannot run here, or null when they can. */
export function chromiumAbsent(): string | null {
  return existsSync(CHROMIUM_PATH)
    ? null
    : `${CHROMIUM_PATH} is absent (Debian: apt-get install -y chromium; .ci/run installs it)`;
}

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = await createTempDir('chromium-profile');
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 900 },
  });
  await context.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
  );
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await profile.cleanup();
    },
  };
}
