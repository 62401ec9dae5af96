// Twenty tasks over the generated tools, and a scripted model that knows only the task: in one
// execute_code call it searches with the task's own words, takes the best match and calls it with
// the arguments the task gives. Used by the test (20 of 20 must pass) and printed by the bench.
import type { CallToolResultLike, CodeMode, CodeModeToolSource, SourceTool } from '../src/index.js';

export interface SearchTask {
  task: string;
  /** The tool that does it. */
  expected: string;
  /** What the model passes (what it would write after reading the signature search returns). */
  args: Record<string, unknown>;
}

export const searchTasks: SearchTask[] = [
  {
    task: "Open a new GitHub issue in acme/web titled 'Login button does nothing'",
    expected: 'github__create_issue',
    args: { owner: 'acme', repo: 'web', title: 'Login button does nothing' },
  },
  {
    task: "Post 'Deploy finished' to the #releases channel on Slack",
    expected: 'slack__post_message',
    args: { channel: '#releases', text: 'Deploy finished' },
  },
  {
    task: "Send an email to bob@example.com with the subject 'Invoice' saying it is attached",
    expected: 'gmail__send_email',
    args: { to: 'bob@example.com', subject: 'Invoice', body: 'The invoice is attached.' },
  },
  {
    task: 'Squash-merge pull request 42 in acme/api',
    expected: 'github__merge_pull_request',
    args: { owner: 'acme', repo: 'api', pull_number: '42', merge_method: 'squash' },
  },
  {
    task: 'Move the Jira issue PROJ-7 to Done',
    expected: 'jira__transition_issue',
    args: { project_key: 'PROJ', issue_key: 'PROJ-7', status: 'Done' },
  },
  {
    task: 'Refund the Stripe payment pi_123 because the customer asked',
    expected: 'stripe__create_refund',
    args: { payment_intent_id: 'pi_123', reason: 'requested_by_customer' },
  },
  {
    task: 'Show the last 100 log lines of the pod web-1 in the prod namespace',
    expected: 'k8s__get_logs_of_pod',
    args: { namespace: 'prod', pod: 'web-1', tail_lines: '100' },
  },
  {
    task: 'Scale the checkout deployment in Kubernetes to 5 replicas',
    expected: 'k8s__scale_deployment',
    args: { namespace: 'default', deployment: 'checkout', replicas: '5' },
  },
  {
    task: 'Who is on call right now for the PagerDuty schedule PD123?',
    expected: 'pagerduty__get_on_call_for_schedule',
    args: { schedule_id: 'PD123' },
  },
  {
    task: 'Acknowledge the PagerDuty incident Q1W2',
    expected: 'pagerduty__acknowledge_incident',
    args: { incident_id: 'Q1W2' },
  },
  {
    task: 'Run the SQL query SELECT count(*) FROM users on the analytics Postgres database',
    expected: 'postgres__run_query',
    args: { database: 'analytics', sql: 'SELECT count(*) FROM users' },
  },
  {
    task: 'Upload report.csv to the S3 bucket named reports',
    expected: 's3__upload_object',
    args: { bucket: 'reports', key: 'report.csv', content: 'a,b\n1,2\n' },
  },
  {
    task: "Put a meeting called 'Planning' on my Google Calendar tomorrow from 10 to 11",
    expected: 'calendar__create_event',
    args: {
      calendar_id: 'primary',
      summary: 'Planning',
      start: '2026-11-25T10:00:00Z',
      end: '2026-11-25T11:00:00Z',
    },
  },
  {
    task: 'Share the Google Drive file 1AbC with carol@example.com so she can edit it',
    expected: 'gdrive__share_file',
    args: { file_id: '1AbC', email: 'carol@example.com', role: 'writer' },
  },
  {
    task: 'Mute the Datadog monitor 998 until tomorrow morning',
    expected: 'datadog__mute_monitor',
    args: { monitor_id: '998', end: '1764057600' },
  },
  {
    task: "Add a card 'Fix footer' to the Trello board B1",
    expected: 'trello__create_card',
    args: { board_id: 'B1', name: 'Fix footer' },
  },
  {
    task: 'Stop the Docker container redis-cache',
    expected: 'docker__stop_container',
    args: { container_id: 'redis-cache' },
  },
  {
    task: 'Mark the Sentry issue 4567 in the acme organization as resolved',
    expected: 'sentry__resolve_issue',
    args: { organization: 'acme', issue_id: '4567' },
  },
  {
    task: 'Text +15551234567 by SMS that the package has arrived',
    expected: 'twilio__send_sms',
    args: { to: '+15551234567', body: 'Your package has arrived.' },
  },
  {
    task: 'Purge the Cloudflare cache of the zone z-1',
    expected: 'cloudflare__purge_cache_of_zone',
    args: { zone_id: 'z-1' },
  },
];

/** A source over generated tools whose calls answer `{ tool, args }` and are remembered. */
export function recordingSource(tools: readonly SourceTool[]): CodeModeToolSource & {
  calls: Array<{ name: string; args: unknown }>;
} {
  const calls: Array<{ name: string; args: unknown }> = [];
  return {
    calls,
    listTools: () => tools,
    callTool: async (name, args): Promise<CallToolResultLike> => {
      calls.push({ name, args });
      return { content: [{ type: 'text', text: JSON.stringify({ tool: name, args }) }] };
    },
  };
}

/** The one script the scripted model writes for a task: search with its words, call the best match. */
export function scriptFor(task: SearchTask): string {
  return [
    `const hits = await search(${JSON.stringify(task.task)}, { limit: 3 });`,
    `const call = (tools as unknown as Record<string, (input: unknown) => Promise<unknown>>)[hits[0]!.identifier]!;`,
    `return { picked: hits[0]!.name, result: await call(${JSON.stringify(task.args)}) };`,
  ].join('\n');
}

export interface SearchTaskOutcome {
  task: SearchTask;
  /** The tool the code called (undefined when the run failed before calling one). */
  called: string | undefined;
  ok: boolean;
  error?: string;
}

/** Runs every task as one execute_code call each; a task passes when the right tool was called. */
export async function runSearchTasks(
  codeMode: CodeMode,
  tasks: readonly SearchTask[] = searchTasks,
): Promise<SearchTaskOutcome[]> {
  const outcomes: SearchTaskOutcome[] = [];
  for (const task of tasks) {
    const result = await codeMode.run(scriptFor(task));
    const called = result.toolCalls[0]?.name;
    outcomes.push({
      task,
      called,
      ok: result.ok && result.toolCalls.length === 1 && called === task.expected,
      ...(result.error ? { error: result.error.message } : {}),
    });
  }
  return outcomes;
}
