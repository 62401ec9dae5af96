import { h } from './dom.js';

/** What `/api/call` answers (the last line of its stream). */
export type CallAnswer =
  | {
      ok: true;
      result: { content?: ContentPart[]; structuredContent?: unknown; isError?: boolean };
    }
  | { ok: false; error: { code: number; message: string } };

interface ContentPart {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string; blob?: string; mimeType?: string };
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|svg\+xml)$/;

/** Text as text, JSON pretty, images as images, resources by their text or link. */
export function renderResult(box: HTMLElement, answer: CallAnswer): void {
  box.replaceChildren();
  const pre = (text: string): void => void box.append(h('pre', {}, text));
  const partLabel = (text: string): void =>
    void box.append(h('div', { class: 'part-label' }, text));
  if (!answer.ok) {
    pre(answer.error?.message || 'failed');
    return;
  }
  const result = answer.result ?? {};
  for (const part of result.content ?? []) {
    if (part.type === 'text') pre(part.text ?? '');
    else if (part.type === 'image' && IMAGE_TYPES.test(part.mimeType ?? '')) {
      const img = h('img', {
        alt: `image result (${part.mimeType})`,
        data: { testid: 'result-image' },
      });
      img.src = `data:${part.mimeType};base64,${part.data}`;
      box.append(img);
    } else if (part.type === 'audio') {
      const audio = h('audio', { controls: true });
      audio.src = `data:${part.mimeType};base64,${part.data}`;
      box.append(audio);
    } else if (part.type === 'resource' && part.resource) {
      const resource = part.resource;
      partLabel(`resource ${resource.uri}`);
      pre(
        resource.text !== undefined
          ? resource.text
          : `[${resource.mimeType || 'binary'}, ${Math.round(((resource.blob ?? '').length * 3) / 4)} bytes]`,
      );
    } else if (part.type === 'resource_link') {
      partLabel(`link ${part.uri}${part.name ? ` (${part.name})` : ''}`);
    } else pre(JSON.stringify(part, null, 2));
  }
  if (result.structuredContent !== undefined) {
    partLabel('structured content');
    pre(JSON.stringify(result.structuredContent, null, 2));
  }
}
