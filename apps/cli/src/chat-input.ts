/** The interactive chat's commands: a line starting with `/` is one of these, never a prompt. */
const CHAT_COMMANDS: ReadonlyArray<{ usage: string; what: string }> = [
  { usage: '/help', what: 'this list' },
  { usage: '/tools', what: 'the tools the model can use' },
  { usage: '/model [id]', what: 'the model; with an id, switch to it (the conversation is kept)' },
  { usage: '/clear', what: 'forget the conversation and start over' },
  { usage: '/exit', what: 'quit (also /quit, or Ctrl-C twice at the prompt)' },
];

type CommandName = 'help' | 'tools' | 'model' | 'clear' | 'exit';

const NAMES: Record<string, CommandName> = {
  help: 'help',
  '?': 'help',
  tools: 'tools',
  model: 'model',
  clear: 'clear',
  exit: 'exit',
  quit: 'exit',
};

export type ChatInput =
  | { kind: 'message'; text: string }
  | { kind: 'command'; name: CommandName; argument: string }
  | { kind: 'unknown'; name: string };

/**
 * What a line typed at the prompt is: nothing (blank), a command (`/model gpt-5-mini`), an unknown
 * command, or a message for the model. `//` starts a message that begins with `/`.
 */
export function readChatInput(line: string): ChatInput | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  if (text.startsWith('//')) return { kind: 'message', text: text.slice(1) };
  if (!text.startsWith('/')) return { kind: 'message', text };
  const [word = '', ...rest] = text.slice(1).split(/\s+/);
  const name = NAMES[word.toLowerCase()];
  if (name === undefined) return { kind: 'unknown', name: `/${word}` };
  return { kind: 'command', name, argument: rest.join(' ') };
}

/** The `/help` text, one command a line. */
export function chatHelp(): string[] {
  const width = Math.max(...CHAT_COMMANDS.map((command) => command.usage.length));
  return [
    ...CHAT_COMMANDS.map((command) => `${command.usage.padEnd(width)}  ${command.what}`),
    `${'//text'.padEnd(width)}  send a message that starts with /`,
  ];
}
