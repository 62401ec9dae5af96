// A deterministic set of realistic tools (the CRUD and workflow operations of 25 SaaS and
// infrastructure servers), for measuring code mode at a tool count no real test setup reaches.
// The same call always gives the same tools in the same order: no randomness, no clock.
import type { JsonSchema } from '@toolwire/schema';
import type { SourceTool } from '../src/index.js';

interface Resource {
  name: string;
  plural?: string;
  /** Parameters naming where the resource lives (`owner`, `repo`), required by every operation. */
  parent?: string[];
  /** The identifier parameter of one resource (`issue_number`). */
  id: string;
  /** Fields set on create and update: name → description (`[description]` for a list of strings). */
  fields: Record<string, string | [string]>;
  /** Fields required on create (default: the first). */
  required?: string[];
  /** Operations besides list/get/create/update/delete, or instead of them with `only`. */
  extra?: Array<{ verb: string; description: string; params?: Record<string, string> }>;
  only?: Array<'list' | 'get' | 'create' | 'update' | 'delete'>;
  /** Verb used instead of `create` (Slack posts a message). */
  createVerb?: string;
}

interface Service {
  server: string;
  title: string;
  resources: Resource[];
}

const parameterDescriptions: Record<string, string> = {
  owner: 'Account owner of the repository (user or organization login)',
  repo: 'Repository name without the owner',
  project_id: 'ID or URL-encoded path of the project',
  channel: 'Channel ID or name, e.g. #general',
  project_key: 'Key of the project, e.g. PROJ',
  team_id: 'ID of the team',
  database_id: 'ID of the database',
  page_id: 'ID of the page',
  calendar_id: 'Calendar ID; "primary" for the user\'s main calendar',
  bucket: 'Name of the bucket',
  namespace: 'Kubernetes namespace (default "default")',
  organization: 'Organization slug',
  board_id: 'ID of the board',
  space_key: 'Key of the space',
  file_key: 'Key of the file (from its URL)',
  database: 'Name of the database',
  region: 'Cloud region, e.g. us-east-1',
  site: 'Site name',
};

const services: Service[] = [
  {
    server: 'github',
    title: 'GitHub',
    resources: [
      {
        name: 'issue',
        parent: ['owner', 'repo'],
        id: 'issue_number',
        fields: {
          title: 'Title of the issue',
          body: 'Markdown body of the issue',
          labels: ['Labels to apply'],
          assignees: ['Logins of users to assign'],
        },
        extra: [
          {
            verb: 'comment_on',
            description: 'Add a comment to an issue or pull request in a GitHub repository.',
            params: { issue_number: 'Number of the issue', body: 'Markdown text of the comment' },
          },
        ],
      },
      {
        name: 'pull_request',
        parent: ['owner', 'repo'],
        id: 'pull_number',
        fields: {
          title: 'Title of the pull request',
          head: 'Branch with the changes',
          base: 'Branch to merge into',
          body: 'Description',
          draft: 'Open as a draft',
        },
        required: ['title', 'head', 'base'],
        extra: [
          {
            verb: 'merge',
            description:
              'Merge an open pull request in a GitHub repository, with a merge commit, squash or rebase.',
            params: {
              pull_number: 'Number of the pull request',
              merge_method: 'merge, squash or rebase',
            },
          },
          {
            verb: 'request_reviewers_for',
            description: 'Ask users or teams to review a pull request.',
            params: {
              pull_number: 'Number of the pull request',
              reviewers: 'Comma-separated logins',
            },
          },
        ],
      },
      {
        name: 'branch',
        plural: 'branches',
        parent: ['owner', 'repo'],
        id: 'branch',
        fields: { branch: 'Name of the new branch', from: 'Branch or commit SHA to start from' },
        only: ['list', 'get', 'create', 'delete'],
      },
      {
        name: 'release',
        parent: ['owner', 'repo'],
        id: 'release_id',
        fields: {
          tag_name: 'Git tag of the release, e.g. v1.2.0',
          name: 'Title of the release',
          body: 'Release notes (Markdown)',
          prerelease: 'Mark as a pre-release',
        },
      },
      {
        name: 'workflow_run',
        parent: ['owner', 'repo'],
        id: 'run_id',
        fields: {},
        only: ['list', 'get'],
        extra: [
          {
            verb: 'rerun',
            description: 'Re-run a failed GitHub Actions workflow run.',
            params: { run_id: 'ID of the workflow run' },
          },
          {
            verb: 'cancel',
            description: 'Cancel a GitHub Actions workflow run that is queued or in progress.',
            params: { run_id: 'ID of the workflow run' },
          },
        ],
      },
      {
        name: 'repository',
        plural: 'repositories',
        parent: ['owner'],
        id: 'repo',
        fields: {
          name: 'Name of the repository',
          private: 'Private repository',
          description: 'Short description',
        },
        extra: [
          {
            verb: 'fork',
            description: 'Fork a GitHub repository into your account or an organization.',
            params: { repo: 'Repository name', organization: 'Organization to fork into' },
          },
          {
            verb: 'star',
            description: 'Star a GitHub repository for the authenticated user.',
            params: { repo: 'Repository name' },
          },
        ],
      },
    ],
  },
  {
    server: 'gitlab',
    title: 'GitLab',
    resources: [
      {
        name: 'merge_request',
        parent: ['project_id'],
        id: 'merge_request_iid',
        fields: {
          title: 'Title',
          source_branch: 'Branch with the changes',
          target_branch: 'Branch to merge into',
          description: 'Description (Markdown)',
        },
        required: ['title', 'source_branch', 'target_branch'],
        extra: [
          {
            verb: 'approve',
            description: 'Approve a GitLab merge request.',
            params: { merge_request_iid: 'Internal ID of the merge request' },
          },
        ],
      },
      {
        name: 'pipeline',
        parent: ['project_id'],
        id: 'pipeline_id',
        fields: { ref: 'Branch or tag to run the pipeline for' },
        extra: [
          {
            verb: 'retry',
            description: 'Retry the failed jobs of a GitLab CI/CD pipeline.',
            params: { pipeline_id: 'ID of the pipeline' },
          },
        ],
      },
      {
        name: 'issue',
        parent: ['project_id'],
        id: 'issue_iid',
        fields: { title: 'Title', description: 'Description', labels: ['Labels'] },
      },
      {
        name: 'project',
        id: 'project_id',
        fields: {
          name: 'Name',
          visibility: 'private, internal or public',
          description: 'Description',
        },
      },
    ],
  },
  {
    server: 'slack',
    title: 'Slack',
    resources: [
      {
        name: 'message',
        parent: ['channel'],
        id: 'ts',
        fields: {
          text: 'Message text (mrkdwn)',
          thread_ts: 'Timestamp of the parent message to reply in a thread',
        },
        createVerb: 'post',
        extra: [
          {
            verb: 'schedule',
            description: 'Schedule a Slack message to be posted to a channel at a later time.',
            params: { text: 'Message text', post_at: 'Unix time to post at' },
          },
          {
            verb: 'pin',
            description: 'Pin a message to a Slack channel.',
            params: { ts: 'Timestamp of the message' },
          },
        ],
      },
      {
        name: 'channel',
        id: 'channel',
        fields: {
          name: 'Channel name without #',
          is_private: 'Create a private channel',
          topic: 'Channel topic',
        },
        extra: [
          {
            verb: 'archive',
            description: 'Archive a Slack channel.',
            params: { channel: 'Channel ID' },
          },
          {
            verb: 'invite_users_to',
            description: 'Invite users to a Slack channel.',
            params: { channel: 'Channel ID', users: 'Comma-separated user IDs' },
          },
        ],
      },
      {
        name: 'reaction',
        parent: ['channel'],
        id: 'ts',
        fields: { name: 'Emoji name without colons', timestamp: 'Timestamp of the message' },
        only: ['create', 'delete', 'list'],
        createVerb: 'add',
      },
      {
        name: 'user',
        id: 'user_id',
        fields: {},
        only: ['list', 'get'],
        extra: [
          {
            verb: 'set_status_of',
            description: "Set the authenticated Slack user's status text and emoji.",
            params: { status_text: 'Status text', status_emoji: 'Emoji, e.g. :palm_tree:' },
          },
        ],
      },
      {
        name: 'reminder',
        id: 'reminder_id',
        fields: {
          text: 'What to be reminded of',
          time: 'When, e.g. "in 15 minutes" or a Unix time',
        },
        only: ['list', 'create', 'delete'],
      },
    ],
  },
  {
    server: 'jira',
    title: 'Jira',
    resources: [
      {
        name: 'issue',
        parent: ['project_key'],
        id: 'issue_key',
        fields: {
          summary: 'Summary line',
          description: 'Description',
          issue_type: 'Bug, Task, Story or Epic',
          priority: 'Highest, High, Medium, Low or Lowest',
          assignee: 'Account ID of the assignee',
        },
        extra: [
          {
            verb: 'transition',
            description:
              'Move a Jira issue to another status in its workflow, e.g. from To Do to In Progress or Done.',
            params: { issue_key: 'Key of the issue, e.g. PROJ-123', status: 'Target status name' },
          },
          {
            verb: 'log_work_on',
            description: 'Log time spent working on a Jira issue.',
            params: { issue_key: 'Key of the issue', time_spent: 'Time spent, e.g. 2h 30m' },
          },
        ],
      },
      {
        name: 'sprint',
        parent: ['board_id'],
        id: 'sprint_id',
        fields: {
          name: 'Name of the sprint',
          goal: 'Sprint goal',
          start_date: 'ISO date',
          end_date: 'ISO date',
        },
        extra: [
          {
            verb: 'start',
            description: 'Start a future sprint on a Jira board.',
            params: { sprint_id: 'ID of the sprint' },
          },
        ],
      },
      {
        name: 'project',
        id: 'project_key',
        fields: { name: 'Name', key: 'Project key', lead: 'Account ID of the project lead' },
      },
      {
        name: 'comment',
        parent: ['project_key'],
        id: 'comment_id',
        fields: { issue_key: 'Key of the issue', body: 'Comment text' },
      },
    ],
  },
  {
    server: 'linear',
    title: 'Linear',
    resources: [
      {
        name: 'issue',
        parent: ['team_id'],
        id: 'issue_id',
        fields: {
          title: 'Title',
          description: 'Markdown description',
          priority: '0 (none) to 4 (low)',
          estimate: 'Points',
        },
      },
      {
        name: 'cycle',
        parent: ['team_id'],
        id: 'cycle_id',
        fields: { name: 'Name', starts_at: 'ISO date', ends_at: 'ISO date' },
      },
      {
        name: 'project',
        id: 'project_id',
        fields: { name: 'Name', description: 'Description', target_date: 'ISO date' },
      },
    ],
  },
  {
    server: 'notion',
    title: 'Notion',
    resources: [
      {
        name: 'page',
        id: 'page_id',
        fields: {
          parent_page_id: 'Page to create it under',
          title: 'Title',
          content: 'Content as Markdown',
        },
        extra: [
          {
            verb: 'search',
            description: 'Search Notion pages and databases shared with the integration by title.',
            params: { query: 'Words in the title' },
          },
        ],
      },
      {
        name: 'database',
        id: 'database_id',
        fields: {
          parent_page_id: 'Page to create it under',
          title: 'Title',
          properties: 'Property schema as JSON',
        },
        extra: [
          {
            verb: 'query',
            description: 'Query the rows of a Notion database with a filter and sorts.',
            params: { database_id: 'ID of the database', filter: 'Filter as JSON' },
          },
        ],
      },
      {
        name: 'block',
        parent: ['page_id'],
        id: 'block_id',
        fields: {
          type: 'paragraph, heading_1, to_do, bulleted_list_item, …',
          text: 'Text of the block',
        },
        createVerb: 'append',
      },
      {
        name: 'comment',
        parent: ['page_id'],
        id: 'comment_id',
        fields: { text: 'Comment text' },
        only: ['list', 'create'],
      },
    ],
  },
  {
    server: 'gdrive',
    title: 'Google Drive',
    resources: [
      {
        name: 'file',
        id: 'file_id',
        fields: {
          name: 'File name',
          mime_type: 'MIME type',
          parent_folder_id: 'Folder to put it in',
          content: 'Text content',
        },
        extra: [
          {
            verb: 'share',
            description:
              'Share a Google Drive file or folder with a user, group or anyone with the link.',
            params: {
              file_id: 'ID of the file',
              email: 'Email address to share with',
              role: 'reader, commenter or writer',
            },
          },
          {
            verb: 'copy',
            description: 'Make a copy of a Google Drive file.',
            params: { file_id: 'ID of the file', name: 'Name of the copy' },
          },
          {
            verb: 'export',
            description:
              'Export a Google Docs, Sheets or Slides file to PDF, DOCX, XLSX or another format.',
            params: {
              file_id: 'ID of the file',
              mime_type: 'Target MIME type, e.g. application/pdf',
            },
          },
        ],
      },
      {
        name: 'folder',
        id: 'folder_id',
        fields: { name: 'Folder name', parent_folder_id: 'Parent folder' },
      },
      {
        name: 'permission',
        parent: ['file_id'],
        id: 'permission_id',
        fields: { email: 'Email address', role: 'reader, commenter or writer' },
      },
    ],
  },
  {
    server: 'gmail',
    title: 'Gmail',
    resources: [
      {
        name: 'email',
        id: 'email_id',
        fields: {
          to: 'Recipient addresses, comma-separated',
          subject: 'Subject line',
          body: 'Plain-text body',
          cc: 'Cc addresses',
        },
        required: ['to', 'subject', 'body'],
        createVerb: 'send',
        only: ['list', 'get', 'create', 'delete'],
        extra: [
          {
            verb: 'reply_to',
            description: 'Reply to an email in Gmail, keeping it in the same thread.',
            params: { email_id: 'ID of the email to reply to', body: 'Reply text' },
          },
          {
            verb: 'forward',
            description: 'Forward an email in Gmail to other recipients.',
            params: { email_id: 'ID of the email', to: 'Recipient addresses' },
          },
          {
            verb: 'archive',
            description: 'Archive an email: remove it from the inbox without deleting it.',
            params: { email_id: 'ID of the email' },
          },
        ],
      },
      {
        name: 'draft',
        id: 'draft_id',
        fields: { to: 'Recipients', subject: 'Subject', body: 'Body' },
      },
      {
        name: 'label',
        id: 'label_id',
        fields: { name: 'Label name', color: 'Background color as hex' },
      },
      {
        name: 'filter',
        id: 'filter_id',
        fields: {
          from: 'Sender to match',
          label_id: 'Label to apply',
          skip_inbox: 'Archive matching mail',
        },
        only: ['list', 'create', 'delete'],
      },
    ],
  },
  {
    server: 'calendar',
    title: 'Google Calendar',
    resources: [
      {
        name: 'event',
        parent: ['calendar_id'],
        id: 'event_id',
        fields: {
          summary: 'Title of the event',
          start: 'Start time (ISO 8601)',
          end: 'End time (ISO 8601)',
          attendees: ['Email addresses of the attendees'],
          location: 'Where',
        },
        required: ['summary', 'start', 'end'],
        extra: [
          {
            verb: 'find_free_time_for',
            description: 'Find time slots when all the given people are free in Google Calendar.',
            params: {
              emails: 'Comma-separated email addresses',
              duration_minutes: 'Length of the meeting',
            },
          },
          {
            verb: 'respond_to',
            description: 'Accept, decline or tentatively accept a calendar invitation.',
            params: { event_id: 'ID of the event', response: 'accepted, declined or tentative' },
          },
        ],
      },
      {
        name: 'calendar',
        id: 'calendar_id',
        fields: { summary: 'Name of the calendar', time_zone: 'IANA time zone' },
      },
    ],
  },
  {
    server: 'stripe',
    title: 'Stripe',
    resources: [
      {
        name: 'customer',
        id: 'customer_id',
        fields: { email: 'Email address', name: 'Full name', description: 'Internal note' },
      },
      {
        name: 'invoice',
        id: 'invoice_id',
        fields: {
          customer_id: 'Customer to bill',
          description: 'Memo',
          days_until_due: 'Days until due',
        },
        extra: [
          {
            verb: 'finalize',
            description: 'Finalize a draft Stripe invoice so it can be paid.',
            params: { invoice_id: 'ID of the invoice' },
          },
          {
            verb: 'void',
            description: 'Void a finalized Stripe invoice that should not be paid.',
            params: { invoice_id: 'ID of the invoice' },
          },
        ],
      },
      {
        name: 'subscription',
        id: 'subscription_id',
        fields: {
          customer_id: 'Customer',
          price_id: 'Price to subscribe to',
          trial_days: 'Trial length in days',
        },
        extra: [
          {
            verb: 'cancel',
            description: 'Cancel a Stripe subscription, now or at the end of the billing period.',
            params: {
              subscription_id: 'ID of the subscription',
              at_period_end: 'Cancel at period end',
            },
          },
        ],
      },
      {
        name: 'refund',
        id: 'refund_id',
        fields: {
          payment_intent_id: 'Payment to refund',
          amount: 'Amount in cents (default: all)',
          reason: 'duplicate, fraudulent or requested_by_customer',
        },
        only: ['list', 'get', 'create'],
      },
      {
        name: 'payment_intent',
        id: 'payment_intent_id',
        fields: {
          amount: 'Amount in cents',
          currency: 'Three-letter ISO currency code',
          customer_id: 'Customer',
        },
        required: ['amount', 'currency'],
        extra: [
          {
            verb: 'capture',
            description: 'Capture the funds of an authorized Stripe payment intent.',
            params: { payment_intent_id: 'ID of the payment intent' },
          },
        ],
      },
      {
        name: 'product',
        id: 'product_id',
        fields: { name: 'Name', description: 'Description', active: 'Available for purchase' },
      },
      {
        name: 'price',
        id: 'price_id',
        fields: {
          product_id: 'Product',
          unit_amount: 'Amount in cents',
          currency: 'Currency',
          interval: 'month or year for recurring prices',
        },
        only: ['list', 'get', 'create', 'update'],
      },
    ],
  },
  {
    server: 'postgres',
    title: 'PostgreSQL',
    resources: [
      {
        name: 'table',
        parent: ['database'],
        id: 'table',
        fields: { table: 'Table name', columns: 'Column definitions as SQL' },
        extra: [
          {
            verb: 'describe',
            description: 'Show the columns, types, indexes and constraints of a PostgreSQL table.',
            params: { table: 'Table name, optionally schema-qualified' },
          },
        ],
      },
      {
        name: 'query',
        plural: 'queries',
        parent: ['database'],
        id: 'pid',
        fields: {},
        only: ['list'],
        extra: [
          {
            verb: 'run',
            description:
              'Run a read-only SQL query against a PostgreSQL database and return the rows.',
            params: { sql: 'SQL SELECT statement', max_rows: 'Most rows to return' },
          },
          {
            verb: 'explain',
            description: 'Show the PostgreSQL query plan for a SQL statement (EXPLAIN ANALYZE).',
            params: { sql: 'SQL statement' },
          },
          {
            verb: 'kill',
            description: 'Terminate a running PostgreSQL backend query by its process ID.',
            params: { pid: 'Backend process ID' },
          },
        ],
      },
      {
        name: 'index',
        plural: 'indexes',
        parent: ['database'],
        id: 'index_name',
        fields: { table: 'Table', columns: ['Columns to index'], unique: 'Unique index' },
        only: ['list', 'create', 'delete'],
      },
    ],
  },
  {
    server: 's3',
    title: 'Amazon S3',
    resources: [
      {
        name: 'bucket',
        parent: ['region'],
        id: 'bucket',
        fields: { bucket: 'Bucket name', versioning: 'Enable versioning' },
        only: ['list', 'create', 'delete'],
      },
      {
        name: 'object',
        parent: ['bucket'],
        id: 'key',
        fields: {
          key: 'Object key (path)',
          content: 'Text content to upload',
          content_type: 'MIME type',
        },
        createVerb: 'upload',
        only: ['list', 'get', 'create', 'delete'],
        extra: [
          {
            verb: 'presign_url_for',
            description:
              'Create a temporary pre-signed URL to download an S3 object without credentials.',
            params: { key: 'Object key', expires_in_seconds: 'How long the link works' },
          },
          {
            verb: 'copy',
            description: 'Copy an S3 object to another key or bucket.',
            params: {
              key: 'Source key',
              destination_bucket: 'Target bucket',
              destination_key: 'Target key',
            },
          },
        ],
      },
    ],
  },
  {
    server: 'k8s',
    title: 'Kubernetes',
    resources: [
      {
        name: 'pod',
        parent: ['namespace'],
        id: 'pod',
        fields: {},
        only: ['list', 'get', 'delete'],
        extra: [
          {
            verb: 'get_logs_of',
            description:
              'Fetch the logs of a Kubernetes pod container, optionally only the last lines.',
            params: {
              pod: 'Pod name',
              container: 'Container name',
              tail_lines: 'Only the last N lines',
            },
          },
          {
            verb: 'exec_in',
            description: 'Run a command inside a container of a Kubernetes pod.',
            params: { pod: 'Pod name', command: 'Command line' },
          },
        ],
      },
      {
        name: 'deployment',
        parent: ['namespace'],
        id: 'deployment',
        fields: { image: 'Container image', replicas: 'Number of replicas' },
        extra: [
          {
            verb: 'scale',
            description: 'Scale a Kubernetes deployment to a number of replicas.',
            params: { deployment: 'Deployment name', replicas: 'Wanted replicas' },
          },
          {
            verb: 'rollback',
            description: 'Roll a Kubernetes deployment back to its previous revision.',
            params: { deployment: 'Deployment name' },
          },
          {
            verb: 'restart',
            description: 'Restart all pods of a Kubernetes deployment (rolling restart).',
            params: { deployment: 'Deployment name' },
          },
        ],
      },
      {
        name: 'service',
        parent: ['namespace'],
        id: 'service',
        fields: {
          port: 'Port',
          target_port: 'Container port',
          type: 'ClusterIP, NodePort or LoadBalancer',
        },
      },
      {
        name: 'configmap',
        parent: ['namespace'],
        id: 'configmap',
        fields: { data: 'Key-value data as JSON' },
      },
      {
        name: 'namespace',
        id: 'namespace',
        fields: { name: 'Namespace name' },
        only: ['list', 'create', 'delete'],
      },
    ],
  },
  {
    server: 'docker',
    title: 'Docker',
    resources: [
      {
        name: 'container',
        id: 'container_id',
        fields: {
          image: 'Image to run',
          name: 'Container name',
          ports: ['Port mappings host:container'],
          env: ['Environment variables KEY=value'],
        },
        createVerb: 'run',
        extra: [
          {
            verb: 'stop',
            description: 'Stop a running Docker container.',
            params: { container_id: 'ID or name' },
          },
          {
            verb: 'start',
            description: 'Start a stopped Docker container.',
            params: { container_id: 'ID or name' },
          },
          {
            verb: 'get_logs_of',
            description: 'Fetch the logs of a Docker container.',
            params: { container_id: 'ID or name', tail: 'Only the last N lines' },
          },
        ],
      },
      {
        name: 'image',
        id: 'image',
        fields: { image: 'Image reference', tag: 'Tag' },
        createVerb: 'pull',
        only: ['list', 'create', 'delete'],
        extra: [
          {
            verb: 'build',
            description: 'Build a Docker image from a Dockerfile in a directory.',
            params: { path: 'Build context directory', tag: 'Tag for the image' },
          },
        ],
      },
      {
        name: 'volume',
        id: 'volume',
        fields: { name: 'Volume name', driver: 'Volume driver' },
        only: ['list', 'create', 'delete'],
      },
      {
        name: 'network',
        id: 'network',
        fields: { name: 'Network name', driver: 'bridge or overlay' },
        only: ['list', 'create', 'delete'],
      },
    ],
  },
  {
    server: 'sentry',
    title: 'Sentry',
    resources: [
      {
        name: 'issue',
        parent: ['organization'],
        id: 'issue_id',
        fields: { status: 'resolved, unresolved or ignored', assigned_to: 'User or team' },
        only: ['list', 'get', 'update', 'delete'],
        extra: [
          {
            verb: 'resolve',
            description: 'Mark a Sentry issue (error group) as resolved.',
            params: { issue_id: 'ID of the issue' },
          },
        ],
      },
      {
        name: 'event',
        parent: ['organization'],
        id: 'event_id',
        fields: {},
        only: ['list', 'get'],
      },
      {
        name: 'release',
        parent: ['organization'],
        id: 'version',
        fields: { version: 'Release version', projects: ['Project slugs'] },
      },
      {
        name: 'alert_rule',
        parent: ['organization'],
        id: 'rule_id',
        fields: { name: 'Name', conditions: 'Conditions as JSON', actions: 'Actions as JSON' },
      },
    ],
  },
  {
    server: 'datadog',
    title: 'Datadog',
    resources: [
      {
        name: 'monitor',
        id: 'monitor_id',
        fields: {
          name: 'Name',
          query: 'Monitor query',
          message: 'Notification message',
          type: 'metric alert, log alert, …',
        },
        extra: [
          {
            verb: 'mute',
            description: 'Mute a Datadog monitor so it stops notifying, optionally until a time.',
            params: { monitor_id: 'ID of the monitor', end: 'Unix time to unmute at' },
          },
        ],
      },
      {
        name: 'dashboard',
        id: 'dashboard_id',
        fields: { title: 'Title', widgets: 'Widgets as JSON', layout_type: 'ordered or free' },
      },
      {
        name: 'metric',
        id: 'metric',
        fields: {},
        only: ['list'],
        extra: [
          {
            verb: 'query',
            description: 'Query Datadog metric time series over a time range.',
            params: {
              query: 'Metric query, e.g. avg:system.cpu.user{*}',
              from: 'Start (Unix time)',
              to: 'End (Unix time)',
            },
          },
        ],
      },
      {
        name: 'log',
        id: 'log_id',
        fields: {},
        only: ['list'],
        extra: [
          {
            verb: 'search',
            description: 'Search Datadog logs with a query over a time range.',
            params: { query: 'Log search query', from: 'Start', to: 'End' },
          },
        ],
      },
    ],
  },
  {
    server: 'pagerduty',
    title: 'PagerDuty',
    resources: [
      {
        name: 'incident',
        id: 'incident_id',
        fields: {
          title: 'Title',
          service_id: 'Affected service',
          urgency: 'high or low',
          body: 'Details',
        },
        extra: [
          {
            verb: 'acknowledge',
            description: 'Acknowledge a PagerDuty incident so responders know someone is on it.',
            params: { incident_id: 'ID of the incident' },
          },
          {
            verb: 'resolve',
            description: 'Resolve a PagerDuty incident.',
            params: { incident_id: 'ID of the incident' },
          },
        ],
      },
      {
        name: 'schedule',
        id: 'schedule_id',
        fields: { name: 'Name', time_zone: 'Time zone' },
        extra: [
          {
            verb: 'get_on_call_for',
            description:
              'Find out who is on call right now for a PagerDuty schedule or escalation policy.',
            params: { schedule_id: 'ID of the schedule' },
          },
        ],
      },
      {
        name: 'service',
        id: 'service_id',
        fields: { name: 'Name', escalation_policy_id: 'Escalation policy' },
      },
    ],
  },
  {
    server: 'zendesk',
    title: 'Zendesk',
    resources: [
      {
        name: 'ticket',
        id: 'ticket_id',
        fields: {
          subject: 'Subject',
          comment: 'First comment',
          priority: 'urgent, high, normal or low',
          requester_email: 'Requester',
        },
        extra: [
          {
            verb: 'merge',
            description: 'Merge Zendesk tickets into one target ticket.',
            params: {
              ticket_id: 'Target ticket',
              source_ids: 'Comma-separated ticket IDs to merge',
            },
          },
        ],
      },
      {
        name: 'user',
        id: 'user_id',
        fields: { name: 'Name', email: 'Email', role: 'end-user, agent or admin' },
      },
      {
        name: 'organization',
        id: 'organization_id',
        fields: { name: 'Name', domain_names: ['Email domains'] },
      },
      {
        name: 'macro',
        id: 'macro_id',
        fields: { title: 'Title', actions: 'Actions as JSON' },
        extra: [
          {
            verb: 'apply',
            description: 'Apply a Zendesk macro to a ticket.',
            params: { macro_id: 'ID of the macro', ticket_id: 'Ticket to apply it to' },
          },
        ],
      },
    ],
  },
  {
    server: 'hubspot',
    title: 'HubSpot',
    resources: [
      {
        name: 'contact',
        id: 'contact_id',
        fields: {
          email: 'Email',
          firstname: 'First name',
          lastname: 'Last name',
          company: 'Company',
        },
      },
      {
        name: 'deal',
        id: 'deal_id',
        fields: {
          dealname: 'Name',
          amount: 'Amount',
          dealstage: 'Pipeline stage',
          closedate: 'Expected close date',
        },
      },
      {
        name: 'company',
        plural: 'companies',
        id: 'company_id',
        fields: { name: 'Name', domain: 'Website domain', industry: 'Industry' },
      },
      {
        name: 'note',
        id: 'note_id',
        fields: { body: 'Text of the note', contact_id: 'Contact to attach it to' },
      },
    ],
  },
  {
    server: 'shopify',
    title: 'Shopify',
    resources: [
      {
        name: 'product',
        parent: ['site'],
        id: 'product_id',
        fields: { title: 'Title', body_html: 'Description HTML', vendor: 'Vendor', price: 'Price' },
      },
      {
        name: 'order',
        parent: ['site'],
        id: 'order_id',
        fields: { line_items: 'Line items as JSON', email: 'Customer email' },
        extra: [
          {
            verb: 'fulfill',
            description: 'Mark the items of a Shopify order as shipped, with a tracking number.',
            params: { order_id: 'ID of the order', tracking_number: 'Tracking number' },
          },
          {
            verb: 'refund',
            description: 'Refund a Shopify order, fully or some line items.',
            params: { order_id: 'ID of the order', amount: 'Amount to refund' },
          },
        ],
      },
      {
        name: 'customer',
        parent: ['site'],
        id: 'customer_id',
        fields: { email: 'Email', first_name: 'First name', last_name: 'Last name' },
      },
      {
        name: 'inventory_level',
        parent: ['site'],
        id: 'inventory_item_id',
        fields: { location_id: 'Location', available: 'Quantity available' },
        only: ['list', 'update'],
      },
      {
        name: 'discount_code',
        parent: ['site'],
        id: 'code',
        fields: { code: 'The code customers enter', percentage: 'Percent off' },
      },
    ],
  },
  {
    server: 'twilio',
    title: 'Twilio',
    resources: [
      {
        name: 'sms',
        plural: 'sms_messages',
        id: 'message_sid',
        fields: {
          to: 'Phone number in E.164 form',
          body: 'Text of the SMS',
          from: 'Sending number',
        },
        required: ['to', 'body'],
        createVerb: 'send',
        only: ['list', 'get', 'create'],
      },
      {
        name: 'call',
        id: 'call_sid',
        fields: { to: 'Phone number to call', twiml: 'TwiML instructions', from: 'Calling number' },
        createVerb: 'place',
        only: ['list', 'get', 'create'],
      },
      {
        name: 'phone_number',
        id: 'number_sid',
        fields: { phone_number: 'Number to buy', friendly_name: 'Label' },
        createVerb: 'buy',
        only: ['list', 'create', 'delete'],
      },
    ],
  },
  {
    server: 'confluence',
    title: 'Confluence',
    resources: [
      {
        name: 'page',
        parent: ['space_key'],
        id: 'page_id',
        fields: { title: 'Title', body: 'Body in storage format', parent_id: 'Parent page' },
        extra: [
          {
            verb: 'search',
            description: 'Search Confluence pages with CQL or plain words.',
            params: { cql: 'CQL query or words' },
          },
        ],
      },
      {
        name: 'space',
        id: 'space_key',
        fields: { name: 'Name', key: 'Space key', description: 'Description' },
      },
    ],
  },
  {
    server: 'figma',
    title: 'Figma',
    resources: [
      {
        name: 'file',
        id: 'file_key',
        fields: {},
        only: ['get'],
        extra: [
          {
            verb: 'export_images_from',
            description: 'Render Figma frames or nodes as PNG, SVG or PDF images.',
            params: {
              file_key: 'Key of the file',
              ids: 'Comma-separated node IDs',
              format: 'png, svg or pdf',
            },
          },
        ],
      },
      {
        name: 'comment',
        parent: ['file_key'],
        id: 'comment_id',
        fields: { message: 'Comment text', node_id: 'Node to pin it to' },
        only: ['list', 'create', 'delete'],
      },
      {
        name: 'component',
        parent: ['file_key'],
        id: 'component_key',
        fields: {},
        only: ['list', 'get'],
      },
    ],
  },
  {
    server: 'salesforce',
    title: 'Salesforce',
    resources: [
      {
        name: 'account',
        id: 'account_id',
        fields: { name: 'Account name', industry: 'Industry', website: 'Website' },
      },
      {
        name: 'opportunity',
        plural: 'opportunities',
        id: 'opportunity_id',
        fields: { name: 'Name', stage_name: 'Stage', amount: 'Amount', close_date: 'Close date' },
      },
      {
        name: 'lead',
        id: 'lead_id',
        fields: {
          last_name: 'Last name',
          company: 'Company',
          email: 'Email',
          status: 'Lead status',
        },
        extra: [
          {
            verb: 'convert',
            description: 'Convert a Salesforce lead into an account, contact and opportunity.',
            params: { lead_id: 'ID of the lead' },
          },
        ],
      },
      {
        name: 'soql',
        plural: 'soql',
        id: 'query',
        fields: {},
        only: [],
        extra: [
          {
            verb: 'run',
            description: 'Run a SOQL query against Salesforce and return the records.',
            params: { query: 'SOQL query' },
          },
        ],
      },
    ],
  },
  {
    server: 'trello',
    title: 'Trello',
    resources: [
      {
        name: 'card',
        parent: ['board_id'],
        id: 'card_id',
        fields: {
          name: 'Card title',
          desc: 'Description',
          list_id: 'List to put it in',
          due: 'Due date',
        },
        extra: [
          {
            verb: 'move',
            description: 'Move a Trello card to another list or board.',
            params: { card_id: 'ID of the card', list_id: 'Target list' },
          },
        ],
      },
      {
        name: 'board',
        id: 'board_id',
        fields: { name: 'Board name', desc: 'Description' },
      },
      {
        name: 'list',
        parent: ['board_id'],
        id: 'list_id',
        fields: { name: 'List name', pos: 'top, bottom or a number' },
      },
      {
        name: 'checklist',
        parent: ['board_id'],
        id: 'checklist_id',
        fields: { card_id: 'Card', name: 'Checklist name' },
      },
    ],
  },
  {
    server: 'cloudflare',
    title: 'Cloudflare',
    resources: [
      {
        name: 'dns_record',
        parent: ['zone_id'],
        id: 'record_id',
        fields: {
          type: 'A, AAAA, CNAME, TXT or MX',
          name: 'Record name',
          content: 'Value',
          ttl: 'TTL in seconds',
        },
      },
      {
        name: 'zone',
        id: 'zone_id',
        fields: { name: 'Domain name' },
        extra: [
          {
            verb: 'purge_cache_of',
            description: 'Purge Cloudflare cached files for a zone, all or by URL.',
            params: {
              zone_id: 'ID of the zone',
              files: 'Comma-separated URLs; empty purges everything',
            },
          },
        ],
      },
      {
        name: 'worker',
        id: 'script_name',
        fields: { script: 'JavaScript source of the worker' },
        createVerb: 'deploy',
      },
    ],
  },
  {
    server: 'vercel',
    title: 'Vercel',
    resources: [
      {
        name: 'deployment',
        id: 'deployment_id',
        fields: {
          project: 'Project name',
          git_ref: 'Branch or commit to deploy',
          target: 'production or preview',
        },
        extra: [
          {
            verb: 'promote',
            description: 'Promote a Vercel preview deployment to production.',
            params: { deployment_id: 'ID of the deployment' },
          },
        ],
      },
      {
        name: 'domain',
        id: 'domain',
        fields: { name: 'Domain name', project: 'Project to attach it to' },
        only: ['list', 'get', 'create', 'delete'],
      },
      {
        name: 'env_var',
        parent: ['project'],
        id: 'env_id',
        fields: {
          key: 'Variable name',
          value: 'Value',
          target: ['Environments: production, preview, development'],
        },
      },
    ],
  },
  {
    server: 'airtable',
    title: 'Airtable',
    resources: [
      {
        name: 'record',
        parent: ['base_id', 'table'],
        id: 'record_id',
        fields: { fields: 'Cell values as JSON, by field name' },
      },
      {
        name: 'table',
        parent: ['base_id'],
        id: 'table',
        fields: { name: 'Table name', fields: 'Field definitions as JSON' },
        only: ['list', 'create', 'update'],
      },
    ],
  },
];

parameterDescriptions.zone_id = 'ID of the zone';
parameterDescriptions.project = 'Name of the project';
parameterDescriptions.base_id = 'ID of the base';
parameterDescriptions.table = 'Table name or ID';
parameterDescriptions.file_id = 'ID of the file';

const words = (name: string) => name.replace(/_/g, ' ');

/** `n` realistic tools (at most what the services define), always the same ones in the same order. */
export function generateTools(count = 500): SourceTool[] {
  const tools: SourceTool[] = [];
  for (const service of services) {
    for (const resource of service.resources) {
      for (const tool of resourceTools(service, resource)) tools.push(tool);
    }
  }
  if (tools.length < count)
    throw new Error(`the generator defines ${tools.length} tools, fewer than ${count}`);
  // Any smaller set takes every server's tools in turn, so it still covers every server; the
  // tools stay grouped by server, in the order a registry lists them.
  const byServer = new Map<string, SourceTool[]>();
  for (const tool of tools) {
    const list = byServer.get(tool.source!) ?? [];
    list.push(tool);
    byServer.set(tool.source!, list);
  }
  const picked = new Set<string>();
  const lists = [...byServer.values()];
  for (let index = 0; picked.size < count; index++)
    for (const list of lists)
      if (index < list.length && picked.size < count) picked.add(list[index]!.name);
  return tools.filter((tool) => picked.has(tool.name));
}

function resourceTools(service: Service, resource: Resource): SourceTool[] {
  const label = words(resource.name);
  const plural = resource.plural ?? `${resource.name}s`;
  const parent = resource.parent ?? [];
  const where =
    parent.length > 0
      ? ` in a ${service.title} ${words(parent.at(-1)!).replace(/ (id|key)$/, '')}`
      : ` in ${service.title}`;
  const ops = resource.only ?? ['list', 'get', 'create', 'update', 'delete'];
  const fieldNames = Object.keys(resource.fields);
  const out: SourceTool[] = [];
  const tool = (
    verb: string,
    noun: string,
    description: string,
    properties: Record<string, unknown>,
    required: string[],
  ) => {
    out.push({
      name: `${service.server}__${verb}_${noun}`,
      source: service.server,
      description,
      inputSchema: {
        type: 'object',
        properties: properties as Record<string, JsonSchema>,
        required,
        additionalProperties: false,
      },
    });
  };
  const parentProperties = Object.fromEntries(
    parent.map((name) => [
      name,
      { type: 'string', description: parameterDescriptions[name] ?? words(name) },
    ]),
  );
  const idProperty = {
    [resource.id]: {
      type: 'string',
      description: `${capitalize(words(resource.id))} of the ${label}`,
    },
  };
  const fieldProperties = Object.fromEntries(
    Object.entries(resource.fields).map(([name, description]) => [
      name,
      Array.isArray(description)
        ? { type: 'array', items: { type: 'string' }, description: description[0] }
        : { type: 'string', description },
    ]),
  );
  for (const op of ops) {
    if (op === 'list')
      tool(
        'list',
        plural,
        `List ${words(plural)}${where}. Filter with a search query; results are paginated with a cursor, newest first.`,
        {
          ...parentProperties,
          query: { type: 'string', description: 'Only items matching these words' },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: 100,
            description: 'Items per page (default 30)',
          },
          cursor: { type: 'string', description: 'Cursor from the previous page' },
        },
        parent,
      );
    else if (op === 'get')
      tool(
        'get',
        resource.name,
        `Get one ${label}${where} by its ${words(resource.id)}, with all its fields.`,
        { ...parentProperties, ...idProperty },
        [...parent, resource.id],
      );
    else if (op === 'create')
      tool(
        resource.createVerb ?? 'create',
        resource.name,
        `${capitalize(resource.createVerb ?? 'create')} a ${resource.createVerb ? '' : 'new '}${label}${where}${fieldNames.length > 0 ? ` with its ${fieldNames.slice(0, 3).map(words).join(', ')}` : ''}.`,
        { ...parentProperties, ...fieldProperties },
        [...parent, ...(resource.required ?? fieldNames.slice(0, 1))],
      );
    else if (op === 'update')
      tool(
        'update',
        resource.name,
        `Update an existing ${label}${where}: change its ${fieldNames.map(words).join(', ')}. Fields left out keep their values.`,
        { ...parentProperties, ...idProperty, ...fieldProperties },
        [...parent, resource.id],
      );
    else
      tool(
        'delete',
        resource.name,
        `Delete a ${label}${where} permanently. This cannot be undone.`,
        { ...parentProperties, ...idProperty },
        [...parent, resource.id],
      );
  }
  for (const extra of resource.extra ?? []) {
    const params = Object.fromEntries(
      Object.entries(extra.params ?? {}).map(([name, description]) => [
        name,
        { type: 'string', description },
      ]),
    );
    tool(extra.verb, resource.name, extra.description, { ...parentProperties, ...params }, [
      ...parent,
      ...Object.keys(extra.params ?? {}).slice(0, 1),
    ]);
  }
  return out;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
