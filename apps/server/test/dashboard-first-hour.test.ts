// The dashboard as a newcomer meets it, in headless Chromium at 1280 and 400 px (screenshots in
// test-results/): empty states that say what to do, a live call log (running calls with their
// progress, ended with the right outcome), tables that fit a phone, hints while signed out (and
// client snippets with the Authorization header), a favicon, and a sandbox warm before the
// playground's first run.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type TestGateway } from './helpers.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) =>
  existsSync(path),
);
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results');
const TOKEN = 'first-hour-token-0123456789';
const WIDTHS = [1280, 400] as const;
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

/**
 * The page's problems: script errors, console errors, and failed or 4xx/5xx requests. A 401 is
 * not one: signed out, the API answers 401 by design (the page then asks for a token), and
 * Chromium logs each as a console error.
 */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 401/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && response.status() !== 401)
      problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

describe.skipIf(!CHROMIUM)(
  `the dashboard's first hour in headless Chromium${CHROMIUM ? '' : ' (skipped: Debian package "chromium" is not installed)'}`,
  () => {
    let gw: TestGateway;
    let browser: BrowserContext;
    let profile: string;

    async function open(width: number): Promise<{ page: Page; problems: string[] }> {
      const page = await browser.newPage();
      const problems = watchProblems(page);
      await page.setViewportSize({ width, height: 1000 });
      await page.goto(`${gw.url}/`);
      return { page, problems };
    }

    async function signIn(page: Page): Promise<void> {
      await page.getByPlaceholder('auth.tokens[].token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('tool-list').locator('li[data-tool="fx__slow"]').waitFor();
    }

    async function pick(page: Page, tool: string): Promise<void> {
      await page.getByTestId('tool-list').locator(`li[data-tool="${tool}"]`).click();
      await page.getByTestId('call-button').getByText(`Call ${tool}`).waitFor();
    }

    async function shoot(page: Page, name: string, width: number): Promise<void> {
      mkdirSync(RESULTS, { recursive: true });
      const file = join(RESULTS, `first-hour-${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(existsSync(file)).toBe(true);
    }

    /** Whether an element is shown whole inside the viewport's width (no scrolling needed). */
    async function fullyInView(page: Page, selector: string): Promise<boolean> {
      return page.evaluate(`(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        if (!el) return false;
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        return style.display !== 'none' && style.visibility !== 'hidden' && box.width > 0 &&
          box.left >= 0 && box.right <= document.documentElement.clientWidth + 0.5;
      })()`);
    }

    beforeAll(async () => {
      gw = await startGateway({
        nativeTools: ['calculate', 'hash', 'time'],
        mcpServers: {
          fx: fixtureStdioConfig({ tools: ['echo', 'slow'] }),
          // Fails at once: the upstreams table shows it down, with a long reason.
          broken: {
            command: process.execPath,
            args: [
              '-e',
              'console.error("this upstream could not start: a long reason that has to wrap on a narrow screen instead of running off its edge"); process.exit(3)',
            ],
          },
        },
        auth: { tokens: [{ token: TOKEN, client: 'newcomer', allow: ['*'] }] },
      });
      profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'));
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        timeout: 30_000,
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    it('has a favicon: no 404, no console error', async () => {
      const icon = await fetch(`${gw.url}/favicon.ico`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml');
      expect(await icon.text()).toMatch(/^<svg /);
      for (const width of WIDTHS) {
        const { page, problems } = await open(width);
        await page.getByPlaceholder('auth.tokens[].token').waitFor();
        const linked = await page.evaluate(
          "document.querySelector('link[rel=icon]')?.getAttribute('href')",
        );
        expect(linked).toBe('/favicon.svg');
        expect((await page.request.get(`${gw.url}/favicon.svg`)).status()).toBe(200);
        await shoot(page, 'favicon', width);
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    it('says what to do while signed out, and shows client snippets with the Authorization header', async () => {
      for (const width of WIDTHS) {
        const { page, problems } = await open(width);
        await page.getByPlaceholder('auth.tokens[].token').waitFor();
        await page
          .getByTestId('tools-empty')
          .getByText(/Sign in with a bearer token/)
          .waitFor();
        await page
          .getByTestId('upstreams')
          .getByText(/Sign in .* the upstreams/)
          .waitFor();
        await page
          .getByTestId('metrics')
          .getByText(/Sign in .* metrics/)
          .waitFor();
        await page
          .getByTestId('no-calls')
          .getByText(/Sign in .* calls/)
          .waitFor();
        const cursor = JSON.parse((await page.getByTestId('snippet-cursor').textContent())!);
        expect(cursor.mcpServers.toolwire.headers.Authorization).toBe('Bearer <your token>');
        const claude = JSON.parse((await page.getByTestId('snippet-claude').textContent())!);
        expect(claude.mcpServers.toolwire.args).toEqual(
          expect.arrayContaining(['--header', 'Authorization:Bearer <your token>']),
        );
        await shoot(page, 'signed-out', width);
        // Signed in, the hints give way to the data.
        await signIn(page);
        expect(await page.getByTestId('tools-empty').count()).toBe(0);
        await page
          .getByTestId('no-calls')
          .getByText(/No calls yet/)
          .waitFor({ state: 'attached' });
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    it('says when the filter matches no tool, and counts what it shows', async () => {
      for (const width of WIDTHS) {
        const { page, problems } = await open(width);
        await signIn(page);
        const total = await page.getByTestId('tool-list').locator('li[data-tool]').count();
        await page.getByPlaceholder('Filter tools').fill('fx__');
        await page.locator('#tool-count').getByText(`(2 of ${total})`).waitFor();
        await page.getByPlaceholder('Filter tools').fill('no-such-tool');
        await page
          .getByTestId('tools-empty')
          .getByText('No tools match “no-such-tool”: change or clear the filter.')
          .waitFor();
        expect(await page.locator('#tool-count').textContent()).toBe(`(0 of ${total})`);
        expect(await fullyInView(page, '[data-testid=tools-empty]')).toBe(true);
        await shoot(page, 'no-match', width);
        await page.getByPlaceholder('Filter tools').fill('');
        await page.locator('#tool-count').getByText(`(${total})`).waitFor();
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    it('shows a running call in the log with its progress, and ends it as cancelled or ok', async () => {
      for (const width of WIDTHS) {
        const { page, problems } = await open(width);
        await signIn(page);
        await pick(page, 'fx__slow');
        await page.locator('#arg-ms').fill('30000');
        await page.locator('#arg-steps').fill('30');
        await page.getByTestId('call-button').click();
        // Running, in the log, with the tool's latest progress message.
        const running = page.getByTestId('call-log').locator('tr[data-running]', {
          hasText: 'fx__slow',
        });
        await running
          .getByTestId('progress')
          .getByText(/^step \d+ · \d+\/30$/)
          .waitFor();
        expect(await running.locator('td[data-outcome]').getAttribute('data-outcome')).toBe(
          'running',
        );
        expect(await fullyInView(page, 'tr[data-running] td[data-outcome]')).toBe(true);
        await shoot(page, 'running', width);
        // Cancelled in the form, and in the log: `cancelled`, not an error.
        await page.getByTestId('cancel-call').click();
        await page.getByTestId('call-status').locator('[data-outcome="cancelled"]').waitFor();
        const ended = page
          .getByTestId('call-log')
          .locator('tr:not([data-running])', { hasText: 'fx__slow' })
          .first();
        await ended.locator('td[data-outcome="cancelled"]').waitFor();
        expect(await ended.locator('td[data-outcome]').textContent()).toBe('cancelled');
        expect(await ended.locator('td[data-outcome]').getAttribute('class')).toBe('o-cancelled');
        await page
          .getByTestId('call-log')
          .locator('tr[data-running]')
          .waitFor({ state: 'detached' });
        // A slow call that finishes: running first, then its outcome row in its place.
        await page.locator('#arg-ms').fill('2500');
        await page.locator('#arg-steps').fill('5');
        await page.getByTestId('call-button').click();
        await running.waitFor();
        await page.getByTestId('call-status').locator('[data-outcome="ok"]').waitFor();
        await page
          .getByTestId('call-log')
          .locator('tr[data-running]')
          .waitFor({ state: 'detached' });
        const okRow = page
          .getByTestId('call-log')
          .locator('tr:not([data-running])', { hasText: 'fx__slow' })
          .first();
        expect(await okRow.locator('td[data-outcome]').textContent()).toBe('ok');
        // The metrics count the cancelled call apart from errors.
        await page
          .getByTestId('metrics')
          .locator('.card span', { hasText: /^cancelled$/ })
          .waitFor();
        await shoot(page, 'call-log', width);
        expect(problems).toEqual([]);
        await page.close();
      }
    }, 120_000);

    it("fits the call log's Duration and Outcome and the upstreams' Reason in the width", async () => {
      for (const width of WIDTHS) {
        const { page, problems } = await open(width);
        await signIn(page);
        await pick(page, 'fx__echo');
        await page.locator('#arg-text').fill('fits');
        await page.getByTestId('call-button').click();
        const row = page.getByTestId('call-log').locator('tbody tr', { hasText: 'fx__echo' });
        await row.first().waitFor();
        await page
          .getByTestId('upstreams')
          .getByText(/could not start/)
          .waitFor();
        const cells = [
          'tbody#calls tr:first-child td:nth-child(5)',
          'tbody#calls tr:first-child td:nth-child(6)',
          'tbody#servers td.reason',
        ];
        for (const selector of cells)
          expect(await fullyInView(page, selector), `${selector} at ${width} px`).toBe(true);
        // Narrow, who called and where stand under the tool's name instead of in columns.
        if (width === 400)
          expect(
            await page.evaluate(
              "getComputedStyle(document.querySelector('tbody#calls td.tool'), '::after').content",
            ),
          ).toBe('"newcomer · fx"');
        const scroll = await page.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        );
        expect((scroll as number[])[0]).toBeLessThanOrEqual((scroll as number[])[1]!);
        await shoot(page, 'narrow-tables', width);
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    it('has the sandbox warm before the playground runs for the first time', async () => {
      for (const width of WIDTHS) {
        const { page, problems } = await open(width);
        await signIn(page);
        // Opening the page started it; the status says when it is ready, before any run.
        await page.getByTestId('sandbox-status').getByText('sandbox ready').waitFor({
          timeout: 30_000,
        });
        await page
          .getByTestId('code-editor')
          .fill('return await calculate({ expression: "6 * 7" });');
        await page.getByTestId('run-code').click();
        await page
          .getByTestId('code-output')
          .getByText(/"result": 42/)
          .waitFor();
        await shoot(page, 'playground', width);
        expect(problems).toEqual([]);
        await page.close();
      }
      const warm = await waitFor(
        () => gw.logs.find((line) => line.msg === 'code mode warm'),
        'the warm-up log line',
      );
      expect(warm.reason).toBe('the dashboard is open');
    }, 90_000);
  },
);
