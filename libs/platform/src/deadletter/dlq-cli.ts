import { Pool } from 'pg';
import { DEAD_LETTER_STATUSES, DeadLetterStore, poolClient, type DeadLetterStatus } from './store';

const USAGE = `usage: DATABASE_URL=postgres://... node dist/libs/platform/src/deadletter/dlq-cli.js <command>
  list [--service S] [--status dead|replay_requested|replaying|replayed] [--group G] [--limit N] [--json]
  show <id>                        the letter with its event (id as listed: <service>-<n>)
  replay <id>                      ask for a replay of one letter
  replay --all [--service S] [--group G]   ask for a replay of every dead letter
A replay is carried out within seconds by a running process of the letter's service.`;

export interface CliOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

function flags(args: string[]): { positional: string[]; opts: Map<string, string | true> } {
  const positional: string[] = [];
  const opts = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split('=', 2);
    if (inline !== undefined) opts.set(name, inline);
    else if (['all', 'json'].includes(name)) opts.set(name, true);
    else opts.set(name, args[++i] ?? '');
  }
  return { positional, opts };
}

/** The operators' dead-letter tool; answers the exit code. */
export async function runDlqCli(argv: string[], env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const [command, ...rest] = argv;
  const { positional, opts } = flags(rest);
  const str = (name: string): string | undefined => {
    const v = opts.get(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  if (!command || !['list', 'show', 'replay'].includes(command)) {
    io.err(USAGE);
    return 2;
  }
  if (!env.DATABASE_URL) {
    io.err('DATABASE_URL is not set: the database the services share');
    return 2;
  }
  const status = str('status');
  if (status && !DEAD_LETTER_STATUSES.includes(status as DeadLetterStatus)) {
    io.err(`--status must be one of ${DEAD_LETTER_STATUSES.join(', ')}`);
    return 2;
  }
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
  const store = new DeadLetterStore(poolClient(pool));
  try {
    if (command === 'list') {
      const limit = str('limit') ? Number(str('limit')) : 100;
      if (!Number.isInteger(limit) || limit < 1) {
        io.err('--limit must be a positive integer');
        return 2;
      }
      const letters = await store.list({ service: str('service'), group: str('group'), status: status as DeadLetterStatus | undefined, limit });
      if (opts.get('json')) io.out(JSON.stringify(letters, null, 2));
      else if (letters.length === 0) io.out('no dead letters');
      else for (const l of letters) io.out([l.id, l.status, l.kind, l.group, l.eventType ?? '-', l.eventId ?? '-', l.failedAt, `attempts=${l.attempts}`, l.error.replace(/\s+/g, ' ').slice(0, 200)].join('\t'));
      return 0;
    }
    if (command === 'show') {
      const letter = positional[0] ? await store.get(positional[0]) : null;
      if (!letter) {
        io.err(`no dead letter ${positional[0] ?? '(no id given)'}`);
        return 1;
      }
      io.out(JSON.stringify(letter, null, 2));
      return 0;
    }
    if (opts.get('all')) {
      const n = await store.requestReplayAll({ service: str('service'), group: str('group') });
      io.out(`replay requested for ${n} dead letter(s)`);
      return 0;
    }
    const id = positional[0];
    const letter = id ? await store.requestReplay(id) : null;
    if (!letter) {
      io.err(`no dead letter ${id ?? '(give an id, or --all)'}`);
      return 1;
    }
    if (letter.status === 'replayed') {
      io.err(`dead letter ${letter.id} was replayed already`);
      return 1;
    }
    io.out(`${letter.id}: ${letter.status}`);
    return 0;
  } finally {
    await pool.end();
  }
}

if (require.main === module) {
  runDlqCli(process.argv.slice(2), process.env, { out: (l) => console.log(l), err: (l) => console.error(l) })
    .then((code) => process.exit(code))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
