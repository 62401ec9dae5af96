// The tool pins panel: upstream tools held back or flagged (`policy.pinning`), for an admin, with
// an Approve button that pins the definition shown (its hash is sent, so a definition that changed
// again meanwhile is not approved unseen).
import { apiJson } from './api.js';
import type { PinsView } from './api-types.js';
import { $, h } from './dom.js';

const FINDING_LABELS: Record<string, string> = {
  instruction: 'instructions to the model',
  'other-tool': "names another server's tool",
  'hidden-unicode': 'hidden characters',
};

export async function refreshPins(): Promise<void> {
  const view = await apiJson<PinsView>('/api/pins');
  $('pins-mode').textContent = `(mode: ${view.mode})`;
  const shown = view.tools.filter((tool) => tool.status !== 'pinned' || tool.findings.length > 0);
  $('pins-section').hidden = shown.length === 0;
  $('pins').replaceChildren(
    ...shown.map((tool) =>
      h(
        'tr',
        { data: { pin: tool.name, status: tool.status } },
        h('td', {}, tool.name),
        h('td', { class: `pin-${tool.status}` }, tool.status),
        h(
          'td',
          {},
          tool.description,
          tool.approvedDescription !== undefined
            ? h('div', { class: 'muted' }, `approved: ${tool.approvedDescription}`)
            : null,
        ),
        h(
          'td',
          { data: { testid: 'pin-findings' } },
          ...tool.findings.map((finding) =>
            h(
              'span',
              { class: 'flag', title: finding.detail },
              `⚠ ${FINDING_LABELS[finding.kind] ?? finding.kind}: ${finding.detail}`,
            ),
          ),
        ),
        h(
          'td',
          {},
          tool.status === 'held' || tool.status === 'changed'
            ? h(
                'button',
                {
                  type: 'button',
                  data: { approve: tool.name, hash: tool.hash, testid: `approve-${tool.name}` },
                },
                'Approve',
              )
            : null,
        ),
      ),
    ),
  );
}

$('pins').addEventListener('click', (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-approve]');
  if (!button) return;
  button.disabled = true;
  void apiJson('/api/pins/approve', { name: button.dataset.approve, hash: button.dataset.hash })
    .then(() => refreshPins())
    .catch((error: Error) => {
      button.disabled = false;
      button.title = error.message;
    });
});
