import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './helpers.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) =>
  existsSync(path),
);
const SCREENSHOT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'test-results',
  'dashboard.png',
);
const TOKEN = 'dashboard-token-0123456789';

// Flags that keep Chromium quiet on a closed network (no background fetches, no updates).
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

describe.skipIf(!CHROMIUM)(
  `dashboard in headless Chromium${CHROMIUM ? '' : ' (skipped: Debian package "chromium" is not installed)'}`,
  () => {
    let gw: TestGateway;
    let browser: BrowserContext;
    let profile: string;

    beforeAll(async () => {
      gw = await startGateway({
        mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
        auth: { tokens: [{ token: TOKEN, client: 'dashboard-user', allow: ['*'] }] },
      });
      profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'));
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        viewport: { width: 1280, height: 1100 },
        timeout: 30_000,
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    it('loads, asks for the token, lists tools, calls one and shows it in the log', async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${gw.url}/`);
      // No data without a token.
      await page.getByPlaceholder('auth.tokens[].token').waitFor();
      expect(await page.getByTestId('tool-list').locator('li').count()).toBe(0);
      await page.getByPlaceholder('auth.tokens[].token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();

      const list = page.getByTestId('tool-list');
      await list.locator('li[data-tool="fx__add"]').waitFor();
      const names = await list
        .locator('li')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-tool')));
      expect(names).toEqual(
        expect.arrayContaining(['calculate', 'hash', 'time', 'fx__echo', 'fx__add']),
      );
      await page.getByTestId('upstreams').getByText('fx').waitFor();

      await list.locator('li[data-tool="fx__add"]').click();
      // The form is generated from the schema: two number inputs.
      await page.locator('#arg-a').fill('20');
      await page.locator('#arg-b').fill('22');
      await page.getByTestId('call-button').click();
      await page.getByTestId('call-result').getByText('"sum": 42').waitFor();

      const row = page.getByTestId('call-log').locator('tbody tr', { hasText: 'fx__add' });
      await row.waitFor();
      const cells = await row.first().locator('td').allTextContents();
      expect(cells[1]).toBe('fx__add');
      expect(cells[2]).toBe('dashboard-user');
      expect(cells[5]).toBe('ok');

      // Code-mode playground: two tool calls through the gateway.
      await page.getByTestId('run-code').click();
      await page.getByTestId('code-output').getByText('"result": 42').waitFor({ timeout: 30_000 });
      await page
        .getByTestId('call-log')
        .locator('tbody tr', { hasText: 'calculate' })
        .first()
        .waitFor();
      await page.getByText('Declarations the code sees').click();
      await page
        .getByTestId('declarations')
        .getByText(/fx__add|fxAdd/)
        .first()
        .waitFor();
      await page.getByTestId('metrics').getByText('Calls').waitFor();

      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(existsSync(SCREENSHOT)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }, 90_000);
  },
);
