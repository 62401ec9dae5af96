/** What an element may contain: nodes, and text (numbers as text); empty values are skipped. */
export type Child = Node | string | number | boolean | null | undefined;

/** Attributes of an element; `data` sets `data-*` attributes, `hidden` the boolean attribute. */
export interface Props {
  data?: Record<string, string>;
  [attribute: string]: string | boolean | undefined | Record<string, string>;
}

/**
 * Builds an element: attributes set one by one and children appended as nodes or text nodes, so
 * no value is ever parsed as HTML (what the old page did with `innerHTML` and a hand `esc()`).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === 'data') {
      for (const [key, text] of Object.entries(value as Record<string, string>))
        element.dataset[key] = text;
    } else if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string' && !(name === 'class' && value === ''))
      element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false || child === '') continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** The page's element with this id (the page shell always has it). */
export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};
