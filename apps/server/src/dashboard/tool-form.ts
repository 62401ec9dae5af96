import { h, type Child } from './dom.js';
import type { Schema, ToolView } from './api-types.js';

/** A value to start a field with: the schema's default, example, first choice, or an empty one. */
function sample(schema: Schema | undefined): unknown {
  if (!schema || typeof schema !== 'object') return '';
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const type = typeOf(schema);
  if (type === 'string') return '';
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema.properties ?? {}))
      if ((schema.required ?? []).includes(key)) out[key] = sample(value);
    return out;
  }
  return '';
}

function typeOf(schema: Schema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
}

/** An array of objects: edited as a list of fieldsets, one per item. */
export function isObjectArray(schema: Schema): boolean {
  return (
    typeOf(schema) === 'array' &&
    typeof schema.items === 'object' &&
    (typeOf(schema.items) === 'object' || schema.items.properties !== undefined)
  );
}

/**
 * One input for a value; `key` names the attribute that holds the property (`data-arg` on the
 * form, `data-name` inside an item), `data-kind` how to read it.
 */
function input(
  id: string,
  name: string,
  schema: Schema,
  required: boolean,
  key: 'arg' | 'name',
): HTMLElement {
  const type = typeOf(schema);
  const value = sample(schema);
  const data: Record<string, string> = { [key]: name, kind: 'json' };
  if (required) data.required = '1';
  const none = required ? null : h('option', { value: '' }, '(none)');
  if (Array.isArray(schema.enum)) {
    return h(
      'select',
      { id, data },
      none,
      ...schema.enum.map((choice) =>
        h('option', { value: JSON.stringify(choice) }, String(choice)),
      ),
    );
  }
  if (type === 'boolean') {
    return h(
      'select',
      { id, data },
      none,
      h('option', { value: 'false' }, 'false'),
      h('option', { value: 'true' }, 'true'),
    );
  }
  const optional = required ? {} : { placeholder: '(optional)' };
  if (type === 'number' || type === 'integer') {
    return h('input', {
      id,
      type: 'number',
      value: required ? String(value) : '',
      ...optional,
      data: { ...data, kind: 'number' },
    });
  }
  if (type === 'string')
    return h('input', { id, value: String(value), ...optional, data: { ...data, kind: 'string' } });
  return h('textarea', { id, rows: '3', data }, required ? JSON.stringify(value, null, 2) : '');
}

function label(name: string, schema: Schema, required: boolean, id?: string): HTMLElement {
  return h(
    'label',
    id ? { for: id } : {},
    h('code', {}, name),
    required ? ' *' : '',
    schema.description ? ` — ${schema.description}` : '',
  );
}

/** The label and input of one argument (a list of item fieldsets for an array of objects). */
export function argumentField(name: string, schema: Schema, required: boolean): Child[] {
  if (isObjectArray(schema)) {
    return [
      label(name, schema, required),
      h('div', { class: 'items', data: { arg: name, kind: 'items', testid: `items-${name}` } }),
      h(
        'button',
        { type: 'button', class: 'secondary add-item', data: { for: name } },
        '+ Add item',
      ),
    ];
  }
  const id = `arg-${name}`;
  return [label(name, schema, required, id), input(id, name, schema, required, 'arg')];
}

/** Adds one item's fieldset to the list of argument `name` of the tool. */
export function addItem(tool: ToolView, name: string): void {
  const schema = tool.inputSchema.properties?.[name]?.items ?? {};
  const box = document.querySelector(`.items[data-arg="${CSS.escape(name)}"]`);
  if (!box) return;
  const n = box.children.length;
  const required = schema.required ?? [];
  const fieldset = h(
    'fieldset',
    { class: 'item' },
    h('legend', {}, `${name}[${n}]`),
    ...Object.entries(schema.properties ?? {}).flatMap(([key, value]) => {
      const id = `arg-${name}-${n}-${key}`;
      return [
        label(key, value, required.includes(key), id),
        input(id, key, value, required.includes(key), 'name'),
      ];
    }),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'secondary remove-item' }, 'Remove'),
    ),
  );
  box.append(fieldset);
  fieldset.querySelector<HTMLElement>('input, select, textarea')?.focus();
}

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function readValue(field: Field): unknown {
  if (field.value === '' && !field.dataset.required) return undefined;
  if (field.dataset.kind === 'string') return field.value;
  if (field.dataset.kind === 'number') return Number(field.value);
  return JSON.parse(field.value) as unknown;
}

/** The arguments the form holds; a field that is not valid JSON throws. */
export function collectArguments(tool: ToolView): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const required = tool.inputSchema.required ?? [];
  for (const element of document.querySelectorAll<HTMLElement>('#call-form [data-arg]')) {
    const name = element.dataset.arg!;
    if (element.dataset.kind === 'items') {
      const items = [...element.children].map((fieldset) => {
        const item: Record<string, unknown> = {};
        for (const sub of fieldset.querySelectorAll<Field>('[data-name]')) {
          const value = readValue(sub);
          if (value !== undefined) item[sub.dataset.name!] = value;
        }
        return item;
      });
      if (items.length > 0 || required.includes(name)) args[name] = items;
      continue;
    }
    const field = element as Field;
    field.dataset.required = required.includes(name) ? '1' : '';
    const value = readValue(field);
    if (value !== undefined) args[name] = value;
  }
  return args;
}
