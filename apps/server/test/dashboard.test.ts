import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './helpers.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) =>
  existsSync(path),
);
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results');
const SCREENSHOT = join(RESULTS, 'dashboard.png');
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

    /** Elements sticking out of the viewport (not counting those inside a scrolling box). */
    async function overflowing(
      page: Page,
    ): Promise<{ bad: string[]; scrollWidth: number; width: number }> {
      // Runs in the page (a string: this package is type-checked without the DOM library).
      return page.evaluate(`(() => {
        const width = document.documentElement.clientWidth;
        const bad = [];
        for (const el of document.querySelectorAll('body *')) {
          const box = el.getBoundingClientRect();
          if (box.width === 0 && box.height === 0) continue;
          let clipped = false;
          for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
            const overflow = getComputedStyle(p).overflowX;
            if (overflow === 'auto' || overflow === 'scroll' || overflow === 'hidden') {
              clipped = true;
              break;
            }
          }
          if (!clipped && (box.right > width + 1 || box.left < -1)) {
            bad.push(el.tagName.toLowerCase() + '#' + el.id + '.' + el.className + ' ' + Math.round(box.left) + '..' + Math.round(box.right));
          }
        }
        return { bad, scrollWidth: document.documentElement.scrollWidth, width };
      })()`);
    }

    async function signIn(page: Page, token: string): Promise<void> {
      await page.getByPlaceholder('auth.tokens[].token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }

    async function pick(page: Page, tool: string): Promise<void> {
      await page.getByTestId('tool-list').locator(`li[data-tool="${tool}"]`).click();
      await page.getByTestId('call-button').getByText(`Call ${tool}`).waitFor();
    }

    async function call(page: Page): Promise<string> {
      await page.getByTestId('call-button').click();
      const outcome = page.getByTestId('call-status').locator('[data-outcome]');
      await outcome.waitFor({ timeout: 30_000 });
      return (await page.getByTestId('call-status').textContent()) ?? '';
    }

    beforeAll(async () => {
      gw = await startGateway({
        mcpServers: {
          fx: fixtureStdioConfig({
            tools: ['echo', 'add', 'slow', 'fail', 'content'],
            extraTools: [
              {
                name: 'tag_items',
                description: 'Echoes the list of items it is given.',
                inputSchema: {
                  type: 'object',
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: { name: { type: 'string' }, qty: { type: 'number' } },
                        required: ['name'],
                      },
                    },
                  },
                  required: ['items'],
                },
              },
            ],
          }),
        },
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
      expect(await page.getByTestId('tool-list').locator('li[data-tool]').count()).toBe(0);
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
      // The log polls on a timer and after every refresh; overlapping polls once showed the
      // call twice. Let both timers fire (1 s and 2 s) and count again.
      await page.waitForTimeout(2_500);
      expect(await row.count()).toBe(1);

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

      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(existsSync(SCREENSHOT)).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }, 90_000);
    it('signs in and out, says when a token is refused, and shows how to connect a client', async () => {
      await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${gw.url}/`);
      await signIn(page, 'not-the-token');
      await page
        .getByTestId('auth-error')
        .getByText(/refused/)
        .waitFor();
      expect(await page.getByTestId('tool-list').locator('li[data-tool]').count()).toBe(0);

      await signIn(page, TOKEN);
      await page.getByTestId('tool-list').locator('li[data-tool="fx__add"]').waitFor();
      expect(await page.getByTestId('auth-error').textContent()).toBe('');
      expect(await page.getByTestId('mcp-url').textContent()).toBe(`${gw.url}/mcp`);
      const cursor = JSON.parse((await page.getByTestId('snippet-cursor').textContent())!);
      expect(cursor.mcpServers.toolwire.url).toBe(`${gw.url}/mcp`);
      expect(cursor.mcpServers.toolwire.headers.Authorization).toMatch(/^Bearer /);
      const claude = JSON.parse((await page.getByTestId('snippet-claude').textContent())!);
      expect(claude.mcpServers.toolwire.args).toContain(`${gw.url}/mcp`);
      await page.getByTestId('copy-url').click();
      await page.getByText('Copied').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`${gw.url}/mcp`);

      await page.getByTestId('sign-out').click();
      await page.getByPlaceholder('auth.tokens[].token').waitFor();
      expect(await page.getByTestId('tool-list').locator('li[data-tool]').count()).toBe(0);
      await page.reload();
      await page.getByPlaceholder('auth.tokens[].token').waitFor();
      expect(await page.getByTestId('tool-list').locator('li[data-tool]').count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    }, 90_000);

    it('calls tools from the keyboard, with forms for lists of objects, images, progress, cancel and one set of outcome words', async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${gw.url}/`);
      await signIn(page, TOKEN);
      const list = page.getByTestId('tool-list');
      await list.locator('li[data-tool="fx__echo"]').waitFor();

      // Keyboard only: from the filter into the list, arrows to the tool, Enter into its form.
      await page.getByPlaceholder('Filter tools').fill('fx__e');
      await page.getByPlaceholder('Filter tools').press('ArrowDown');
      expect(await page.evaluate("document.activeElement?.getAttribute('data-tool')")).toBe(
        'fx__echo',
      );
      await page.keyboard.press('Enter');
      await page.getByTestId('call-button').getByText('Call fx__echo').waitFor();
      await page.keyboard.type('typed');
      await page.keyboard.press('Enter');
      await page.getByTestId('call-result').getByText('echo: typed').waitFor();
      await page.getByPlaceholder('Filter tools').fill('');

      // A list of objects gets one small form per item, not a bare [] text box.
      await pick(page, 'fx__tag_items');
      const items = page.getByTestId('items-items');
      await items.locator('fieldset').first().waitFor();
      await page.locator('#arg-items-0-name').fill('apple');
      await page.locator('#arg-items-0-qty').fill('2');
      await page.getByRole('button', { name: '+ Add item' }).click();
      await page.locator('#arg-items-1-name').fill('pear');
      await call(page);
      await page
        .getByTestId('call-result')
        .getByText('{"items":[{"name":"apple","qty":2},{"name":"pear"}]}')
        .waitFor();

      // Images are images.
      await pick(page, 'fx__content');
      await call(page);
      const image = page.getByTestId('call-result').locator('img');
      await image.waitFor();
      expect(
        await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      ).toBe(1);
      expect(await page.getByTestId('call-result').textContent()).not.toContain('iVBOR');

      // A long call shows its progress and can be cancelled.
      await pick(page, 'fx__slow');
      await page.locator('#arg-ms').fill('30000');
      await page.locator('#arg-steps').fill('30');
      await page.getByTestId('call-button').click();
      await page.waitForFunction(() => {
        const page = globalThis as unknown as {
          document: { querySelector(selector: string): { value?: number } | null };
        };
        return Number(page.document.querySelector('[data-testid=call-progress]')?.value) >= 1;
      });
      expect(await page.getByTestId('call-status').textContent()).toMatch(/running/);
      await page.getByTestId('cancel-call').click();
      await page.getByTestId('call-status').locator('[data-outcome="cancelled"]').waitFor();

      // Durations in sensible units; the same outcome words in the panel, the log and the metrics.
      await page.locator('#arg-ms').fill('1500');
      await page.locator('#arg-steps').fill('3');
      expect(await call(page)).toMatch(/^ok in 1\.\d s$/);
      const slowRow = page
        .getByTestId('call-log')
        .locator('tbody tr', { hasText: 'fx__slow' })
        .first();
      await slowRow.locator('td').nth(5).getByText('ok').waitFor();
      expect(await slowRow.locator('td').nth(4).textContent()).toMatch(/^1\.\d s$/);

      await pick(page, 'fx__fail');
      expect(await call(page)).toMatch(/^tool error in \d+ ms$/);
      const failRow = page
        .getByTestId('call-log')
        .locator('tbody tr', { hasText: 'fx__fail' })
        .first();
      await failRow.waitFor();
      expect(await failRow.locator('td').nth(5).textContent()).toBe('tool error');
      await page
        .getByTestId('metrics')
        .locator('.card span', { hasText: /^tool error$/ })
        .waitFor();
      expect(await page.getByTestId('metrics').locator('.card span').allTextContents()).toEqual(
        expect.arrayContaining(['ok', 'cached', 'tool error', 'error', 'refused']),
      );

      // The playground does not run code that fails the type check.
      const callsBefore = await page
        .getByTestId('call-log')
        .locator('tbody tr', { hasText: 'calculate' })
        .count();
      await page
        .getByTestId('code-editor')
        .fill(
          "const n: number = 'not a number';\nawait calculate({ expression: '1 + 1' });\nreturn n;",
        );
      await page.getByTestId('run-code').click();
      await page
        .getByTestId('code-output')
        .getByText(/not run/)
        .waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('code-output').textContent()).toMatch(/type error line 1/);
      await page.waitForTimeout(1500); // two polls of the log
      expect(
        await page.getByTestId('call-log').locator('tbody tr', { hasText: 'calculate' }).count(),
      ).toBe(callsBefore);

      expect(errors).toEqual([]);
      await page.close();
    }, 120_000);

    it('fits 1280 px and 400 px: panels stack, tables scroll, nothing sticks out', async () => {
      mkdirSync(RESULTS, { recursive: true });
      const fresh = await startGateway({
        mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
        auth: { tokens: [{ token: TOKEN, client: 'dashboard-user', allow: ['*'] }] },
      });
      try {
        for (const width of [1280, 400]) {
          const page = await browser.newPage();
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${fresh.url}/`);
          await signIn(page, TOKEN);
          await page.getByTestId('tool-list').locator('li[data-tool="fx__add"]').waitFor();
          // The empty state before the first call (which the 1280 px round makes).
          if (width === 1280)
            await page
              .getByTestId('no-calls')
              .getByText(/No calls yet/)
              .waitFor();
          await pick(page, 'fx__add');
          await page.locator('#arg-a').fill('20');
          await page.locator('#arg-b').fill('22');
          await call(page);
          await page
            .getByTestId('call-log')
            .locator('tbody tr', { hasText: 'fx__add' })
            .first()
            .waitFor();
          expect(await page.getByTestId('no-calls').isVisible()).toBe(false);
          const panel = await page.locator('#tool-detail').boundingBox();
          expect(panel!.width).toBeGreaterThan(width === 400 ? 300 : 600);
          const file = join(RESULTS, `dashboard-${width}.png`);
          await page.screenshot({ path: file, fullPage: true });
          expect(existsSync(file)).toBe(true);
          const { bad, scrollWidth, width: clientWidth } = await overflowing(page);
          expect(bad).toEqual([]);
          expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
          await page.close();
        }
      } finally {
        await fresh.close();
      }
    }, 120_000);
  },
);
