import { describe, expect, it } from 'vitest';
import { startGateway } from './helpers.js';

describe('dashboard files', () => {
  it('are a page, a script and styles from this origin, under a policy with nothing inline', async () => {
    const gw = await startGateway({ mcpServers: {} });
    try {
      const page = await fetch(`${gw.url}/`);
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      const html = await page.text();
      expect(html).toMatch(/<script type="module" src="\/dashboard\.js"><\/script>/);
      expect(html).toMatch(/<link rel="stylesheet" href="\/dashboard\.css" ?\/?>/);
      // No inline script, no inline style element or attribute: the policy would block them.
      expect(html.match(/<script(?![^>]*\ssrc=)/g)).toBeNull();
      expect(html).not.toMatch(/<style|\sstyle=/);

      const script = await fetch(`${gw.url}/dashboard.js`);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      const code = await script.text();
      // Built from TypeScript, with the DOM built by hand: no HTML parsed from strings.
      expect(code).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
      const styles = await fetch(`${gw.url}/dashboard.css`);
      expect(styles.headers.get('content-type')).toMatch(/^text\/css/);
      expect(await styles.text()).toContain('.card');
    } finally {
      await gw.close();
    }
  });
});
