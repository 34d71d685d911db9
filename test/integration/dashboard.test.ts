/**
 * The dead-letter dashboard in a real browser: a shard poisoned by a store that refuses
 * every L0 write leaves a dead letter; an admin opens `/admin/queues?token=…` in headless
 * Chromium, goes to the dead-letter queue and reads the failure from the page. The
 * screenshot is kept in test-artifacts/dashboard.png.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterQueue } from '../../queue/dead-letter.ts';
import { generationPrefix } from '../../shared/table/paths.ts';
import { type Browser, chromiumAbsent, launchBrowser } from '../support/browser.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { TestTokens } from '../support/http-client.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

const SCREENSHOT = 'test-artifacts/dashboard.png';
const absent = chromiumAbsent();
if (absent) console.log(`skipping the dashboard browser test: ${absent}`);

describe.skipIf(absent !== null)('dead-letter dashboard in headless Chromium', () => {
  let h: Harness;
  let served: TestApi;
  let tokens: TestTokens;
  let browser: Browser;

  beforeAll(async () => {
    served = await serveTestApi(
      {
        flush: { maxRetries: 1, retryBaseMs: 5, retryMaxMs: 20 },
        port: 0,
      },
      { dashboard: true },
    );
    ({ h, tokens } = served);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('shows the dead letter of a poisoned shard with its error, to an admin token', async () => {
    await h.createTable(eventsTable('broken'));
    h.store.inject({ op: 'put', key: `${generationPrefix('broken', 0)}*`, fault: 'fail', permanent: true });
    h.startWorkers();
    await writeRows(h.sluice, 'broken', eventRows(1, 5));
    const letters = new DeadLetterQueue(h.config);
    const letter = await waitFor(async () => (await letters.page()).items[0], {
      message: 'the dead letter of broken/0',
      timeoutMs: 20_000,
    });
    await letters.close();
    expect(letter).toMatchObject({ target: 'broken/0', error: { code: 'STORE_UNAVAILABLE' } });

    const { page } = browser;
    // Nothing but Sluice's own host is asked for anything (bull-board linked Google's fonts).
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    await page.goto(`${served.url}/admin/queues?token=${tokens.admin}`);
    expect(new URL(page.url()).search).toBe('');
    const sidebar = page.locator('#bull-board-sidebar');
    for (const queue of ['seal', 'flush', 'merge', 'sampler', 'dead-letter']) {
      await sidebar.getByRole('link', { name: queue, exact: true }).waitFor();
    }
    await sidebar.getByRole('link', { name: 'dead-letter', exact: true }).click();
    await page.waitForURL(/\/admin\/queues\/queue\/dead-letter$/);
    // A dead letter is shown as the failed job it stands for.
    await page.goto(`${served.url}/admin/queues/queue/dead-letter?status=failed`);
    // The Error tab shows the failure as the flush job ended with it, stack and all.
    const error = page.getByText(`SluiceError: ${letter.error.message}`);
    await error.waitFor({ state: 'visible', timeout: 15_000 });
    // The Data tab shows the dead letter itself as JSON: its code among its visible string values.
    await page.getByText('Data', { exact: true }).click();
    await page.getByText('"STORE_UNAVAILABLE"', { exact: true }).waitFor({ state: 'visible' });
    // The page's own requests ride on the session cookie: every queue is read-only, and a
    // mutation bull-board would send is refused (retries go through the API alone).
    const seen = await page.evaluate(async () => {
      const queues = (await (await fetch('api/queues')).json()) as {
        queues: Array<{ name: string; readOnlyMode: boolean; allowRetries: boolean }>;
      };
      const retry = await fetch('api/queues/dead-letter/retry/waiting', { method: 'PUT' });
      return { queues: queues.queues, retry: retry.status };
    });
    expect(seen.queues.map((q) => [q.name, q.readOnlyMode, q.allowRetries]).sort()).toEqual(
      ['dead-letter', 'flush', 'merge', 'sampler', 'seal'].map((name) => [name, true, false]),
    );
    expect(seen.retry).toBe(403);
    expect([...hosts]).toEqual([new URL(served.url).host]);
    const html = await page.content();
    const sheets = await page.locator('link[rel="stylesheet"]').all();
    const hrefs = await Promise.all(sheets.map((sheet) => sheet.getAttribute('href')));
    const base = new URL((await page.locator('base').getAttribute('href')) ?? '', page.url());
    const css = (
      await Promise.all(
        hrefs.map((href) =>
          page.evaluate(async (url) => (await fetch(url)).text(), new URL(href!, base).href),
        ),
      )
    ).join('\n');
    expect(css).toMatch(/font-family/);
    expect(css).not.toMatch(/<html/i);
    // What the page loads (links to bull-board's site in its menu are anchors, never fetched).
    const loads =
      /<(?:link|script|img|iframe|source)\b[^>]*\b(?:href|src)=["']?(https?:\/\/[^"' >]+)|url\(["']?(https?:\/\/[^"') ]+)/g;
    for (const text of [html, css]) {
      const external = [...text.matchAll(loads)]
        .map((m) => m[1] ?? m[2]!)
        .filter((url) => new URL(url).host !== new URL(served.url).host);
      expect(external).toEqual([]);
    }
    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
