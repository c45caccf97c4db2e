/**
 * Fault drill in distributed mode (issue 17, "Fault drills"): the gateway and the services as their own processes from
 * the build, started from the README's documented variables and deploy/.env.example (`startDistributedMode`, the same
 * start as test/distributed.e2e-spec.ts), on a Kafka mock cluster (kcat), nats-server and embedded PostgreSQL. Mixed load
 * all along: stream API sends (each retried with its Idempotency-Key until answered, as a client would) to a local SMPP
 * SMSC (receipts half a second later, kept and sent again until acknowledged), a contact import, and sign-ins (password
 * and mailed PIN). Events, one at a time with a settle period: SIGKILL each service (restarted at once, as an
 * orchestrator would), SIGTERM each (a rolling restart: it drains and leaves, then starts again), restart PostgreSQL,
 * restart NATS; dispatch replicas: one joins, one dies (SIGKILL, the other sending on), one joins and leaves (SIGTERM).
 *
 * Printed: messages accepted, delivered, lost (accepted but unknown to dispatch or never reaching the SMSC), charged
 * twice (a send accepted as two messages, a ledger entry of a message the drill does not know, or a message whose
 * ledger charge less refund differs from its price less refund; and the balance's debit against the accepted messages'
 * prices less refunds, read once the ledger has every charge and refund), never final, import rows lost, the
 * longest stall per event (no message accepted, and none handed to the SMSC; target 10 s), the resend count (messages
 * the SMSC got more than once) with the number flagged `possible_duplicate`. Ceiling: the longest gaps of the same load
 * before any fault (same run). A process started again is one more process booting on the machine: for each restart
 * the drill also prints how long the new process took to answer its health check (`/api/health`, which waits for its
 * consumer groups) and the longest stall after it did (what the platform costs beyond the boot: rejoining, reconnecting).
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/fault-drill.js [sends-per-second=10] [settle-seconds=20] [processes=all, e.g. streams,dispatch]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { SmppPeer } from '@switchboard/dispatch';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '@switchboard/platform';
import { apiClient, decodeQuotedPrintable, documentedProcesses, startDistributedMode, startKafkaMock, startNatsServer, startSmtpSink, type RunningBroker } from '@switchboard/platform/testing';

const PASSWORD = 'fault drill secret';
const IMPORT_ROWS = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const machine = () => `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;

/** The longest gap between consecutive times in [from, to] (and from `from` to the first, from the last to `to`). */
function longestGap(times: number[], from: number, to: number): number {
  const inside = times.filter((t) => t >= from && t <= to).sort((a, b) => a - b);
  let longest = 0;
  let last = from;
  for (const t of inside) {
    longest = Math.max(longest, t - last);
    last = t;
  }
  return Math.max(longest, to - last);
}

/** Whether the first time after `from` in `times` (unsorted) came within `to`, and how long after `from` it came. */
function firstAfter(times: number[], from: number, to: number): number {
  let first = Infinity;
  for (const t of times) if (t >= from && t < first) first = t;
  return Math.min(first, to) - from;
}

async function main(rate: number, settleSec: number, only: string[] | null): Promise<void> {
  // the repository (dist/bench/.. is dist/)
  const root = path.resolve(__dirname, '../..');
  // every service of the README and the redirect process, each its own process
  const SERVICES = documentedProcesses(root);
  const unknownProcesses = (only ?? []).filter((s) => !SERVICES.includes(s));
  if (unknownProcesses.length > 0) throw new Error(`not a process of distributed mode: ${unknownProcesses.join(', ')} (${SERVICES.join(', ')})`);
  const DRILLED = only ?? SERVICES;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-fault-drill-'));
  fs.chmodSync(dir, 0o755);
  const pgOpts = { dataDir: path.join(dir, 'pg'), port: await freePort(), persistent: true };
  let pg: RunningPostgres = await startEmbeddedPostgres(pgOpts);
  const natsPort = await freePort();
  let nats: RunningBroker = await startNatsServer(natsPort);
  const kafka = await startKafkaMock(1);
  const smtp = await startSmtpSink();
  // a carrier that answers query_sm (SMPP 3.4 4.8) like most do: receipts sent to a killed replica's bind are lost,
  // and dispatch asks for those messages once their receipt is overdue (issue 17, "receipts lost with a connection")
  const smsc = new SmppPeer({ systemId: 'acme', password: 'secret', receiptDelayMs: 500, redeliverUnacked: true, querySm: 'answer' });
  const smscPort = await smsc.listen();
  const t0 = performance.now();
  const dist = await startDistributedMode({ root, databaseUrl: pg.url(), kafkaBrokers: kafka.url, natsUrl: nats.url, smtpUrl: `smtp://127.0.0.1:${smtp.port}`, adminPassword: PASSWORD, services: SERVICES, override: (s): Record<string, string> => ({ dispatch: { DISPATCH_QUERY_SM_INTERVAL_MS: '5000' }, 'links-redirect': { LINKS_REDIRECT_WORKERS: '1' } })[s] ?? {} });
  console.log(`started ${SERVICES.join(', ')} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const call = apiClient(dist.url);
  const email = dist.example.get('SWITCHBOARD_ADMIN_EMAIL') ?? '';

  /** Password, mailed PIN, token; null when any step fails. */
  const signIn = async (): Promise<string | null> => {
    try {
      const before = smtp.mails.length;
      const creds = { username: email, password: PASSWORD, gCaptchaToken: 'x' };
      if ((await call('POST', '/login_check', { body: creds })).status !== 200) return null;
      let pin: string | undefined;
      for (let i = 0; i < 100 && !pin; i++) {
        const mail = smtp.mails.slice(before).find((m) => m.to.includes(email));
        pin = mail ? /\b(\d{6})\b/.exec(decodeQuotedPrintable(mail.data).split('\r\n\r\n').slice(1).join('\n'))?.[1] : undefined;
        if (!pin) await sleep(100);
      }
      if (!pin) return null;
      const login = await call<{ token: string }>('POST', '/login/manual', { body: { ...creds, pin } });
      return login.status === 200 ? login.body.token : null;
    } catch {
      return null;
    }
  };
  const until = async <T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 120_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached: ${what}`);
      await sleep(250);
    }
  };

  // the README's walk-through: vendor, route, sender, limits, stream
  const admin = await until('sign-in', signIn);
  const vendor = await call<{ id: number }>('POST', '/service_type_manager/vendor', { token: admin, body: { name: 'Acme SMSC', service_type: 'sms', adapter: 'smpp', carrier: 'Acme', currency: 'EUR', config: { host: '127.0.0.1', port: smscPort, systemId: 'acme', password: 'secret', receiptOverdueMs: 30_000 } } });
  await call('PUT', '/service_type_manager/countries_mapping', { token: admin, body: { iso2: 'GB', serviceType: 'sms', vendorIds: [String(vendor.body.id)] } });
  await call('POST', '/service_type_manager/refresh', { token: admin });
  const sender = await until('sender', async () => {
    const r = await call<{ id: number }>('POST', '/senders', { token: admin, body: { name: 'Acme', value: 'ACME' } });
    return r.status === 201 ? r.body : null;
  });
  await call('PUT', `/senders/superadmin/${sender.id}`, { token: admin, body: { approved: 1 } });
  await call('PUT', '/customers/1', { token: admin, body: { tps: 100, customSettings: { streams_max_messages_per_day: 1_000_000 } } });
  await call('POST', '/customers/1/balance', { token: admin, body: { amount: '10000', reason: 'fault drill' } });
  const stream = await call<{ id: number }>('POST', '/streams', { token: admin, body: { name: 'Drill', streamType: 2, sender: 'ACME' } });
  const st = (await until('stream token', async () => (await call<{ token: string }>('GET', `/streams/token/${stream.body.id}`, { token: admin })).body?.token)) as string;
  // the balance as accounts answers it, asked with a fresh sign-in: a drill on a loaded machine outlives the first
  // access token (15 minutes), and the last reading then waited for a 401 to turn into a balance
  const balanceOf = async () =>
    BigInt(
      (await until('balance', async () => {
        const token = await signIn();
        return token ? (await call<{ balanceMicros: string }>('GET', '/customers/1', { token })).body?.balanceMicros : null;
      })) as string,
    );
  // one send a message until answered: the first message reaches the SMSC (routing loaded, bind up)
  let warmUp = '';
  await until('a first delivery', async () => {
    const r = await call<{ message_uuid: string }>('POST', '/streams/messages', { headers: { authorization: st, 'idempotency-key': 'warm-up' }, body: { phone: '+447400000000', message: 'warm-up' } });
    if (r.status === 202) warmUp = r.body.message_uuid;
    return r.status === 202 && smsc.submitted > 0;
  });
  /** A query on a connection of its own (PostgreSQL is restarted during the drill). */
  const query = async <R extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> => {
    const c = new Client({ connectionString: pg.url() });
    await c.connect();
    try {
      return (await c.query<R>(text, values)).rows;
    } finally {
      await c.end();
    }
  };
  // The balance before the load is read once accounts' ledger has the warm-up's charge: it reaches accounts on its own
  // consumer group, possibly after the SMSC has the message. Read earlier, the warm-up's 0.05 fell into the drill's
  // debit as a "charge twice" (runs 1 and 4 of decision 0062, both on a loaded machine).
  await until('the warm-up charge in the ledger', async () => (await query(`SELECT 1 FROM accounts.balance_entry WHERE kind = 'charge' AND source_id = $1`, [warmUp])).length > 0);
  const ledgerFrom = BigInt((await query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM accounts.balance_entry`))[0].id);
  const balanceBefore = await balanceOf();

  // load: sends, sign-ins, an import
  const accepted = new Map<string, string>(); // idempotency key -> message uuid
  const acceptedAt: number[] = [];
  let sendAttempts = 0;
  let sendErrors = 0;
  let running = true;
  const inFlight = new Set<Promise<void>>();
  const send = async (i: number) => {
    const key = `drill-${i}`;
    while (!accepted.has(key)) {
      sendAttempts++;
      const r = await call<{ message_uuid: string }>('POST', '/streams/messages', { headers: { authorization: st, 'idempotency-key': key }, body: { phone: `+4474001${String(i).padStart(5, '0')}`, message: `drill ${i}` } }).catch(() => null);
      if (r?.status === 202) {
        accepted.set(key, r.body.message_uuid);
        acceptedAt.push(performance.now());
      } else {
        sendErrors++;
        await sleep(500);
      }
    }
  };
  let sent = 0;
  const sender$ = (async () => {
    while (running) {
      const p = send(sent++).finally(() => inFlight.delete(p));
      inFlight.add(p);
      await sleep(1000 / rate);
    }
  })();
  let signIns = 0;
  let signInFailures = 0;
  const signIns$ = (async () => {
    while (running) {
      if (await signIn()) signIns++;
      else signInFailures++;
      await sleep(3000);
    }
  })();
  const csv = ['phone,first name', ...Array.from({ length: IMPORT_ROWS }, (_, i) => `+447400${200_000 + i},Row ${i}`)].join('\n');
  const fd = new FormData();
  fd.append('file', new Blob([Buffer.from(csv)]), 'drill.csv');
  const upload = (await (await fetch(`${dist.url}/api/import_lists`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: fd })).json()) as { id: number };
  await call('PUT', `/import_lists/${upload.id}`, { token: admin, body: { mapping: [{ column: 0, variable: 'phone' }, { column: 1, variable: 'firstName' }], ignoreFirstLine: true, start: true } });

  // the SMSC stamps parts with Date.now(); the windows are on performance.now()
  const submitTimes = () => smsc.parts.map((p) => p.at - Date.now() + performance.now());
  // ceiling: the same load before any fault
  const quietFrom = performance.now();
  await sleep(settleSec * 1000);
  const quiet = { accept: longestGap(acceptedAt, quietFrom, performance.now()), submit: longestGap(submitTimes(), quietFrom, performance.now()) };

  interface Event {
    name: string;
    accept: number;
    submit: number;
    /** From the fault to the first accept and the first send to the SMSC after it. */
    firstAccept: number;
    firstSubmit: number;
    /** A process started again: from the fault until it answered its health check. */
    boot?: number;
    /** The longest stall from that answer on. */
    afterReady?: number;
    /** SIGTERM: how long the process took to drain and exit. */
    exit?: number;
  }
  const events: Event[] = [];
  const s1 = (ms: number | undefined) => (ms === undefined ? '' : (ms / 1000).toFixed(1));
  /** `act` returns when the process it started again answered its health check (performance.now()), if it started one. */
  const drill = async (name: string, act: (from: number) => Promise<{ readyAt?: number; exit?: number } | void>) => {
    const from = performance.now();
    const r = (await act(from)) ?? {};
    // the stall runs to the first progress after the fault: wait (3 minutes at most) until a send was accepted and one
    // handed to the SMSC after it, and after the restarted process was healthy; then the settle period
    const since = r.readyAt ?? from;
    const waitEnd = performance.now() + 180_000;
    while (performance.now() < waitEnd && !(acceptedAt.some((t) => t >= since) && submitTimes().some((t) => t >= since))) await sleep(200);
    await sleep(settleSec * 1000);
    const to = performance.now();
    const submits = submitTimes();
    const e: Event = {
      name,
      accept: longestGap(acceptedAt, from, to),
      submit: longestGap(submits, from, to),
      firstAccept: firstAfter(acceptedAt, from, to),
      firstSubmit: firstAfter(submits, from, to),
      ...(r.readyAt !== undefined ? { boot: r.readyAt - from, afterReady: Math.max(longestGap(acceptedAt, r.readyAt, to), longestGap(submits, r.readyAt, to)) } : {}),
      ...(r.exit !== undefined ? { exit: r.exit } : {}),
    };
    events.push(e);
    console.log(
      `${name}: longest stall of accepts ${s1(e.accept)} s, of sends to the SMSC ${s1(e.submit)} s` +
        (e.boot !== undefined ? `; the new process healthy after ${s1(e.boot)} s, longest stall after that ${s1(e.afterReady)} s` : '') +
        (e.exit !== undefined ? `; exited ${s1(e.exit)} s after SIGTERM` : ''),
    );
  };
  /** Stops a process with `signal` (SIGKILL after 60 s of SIGTERM) and starts it again, as an orchestrator would. */
  const restart = async (s: string, signal: NodeJS.Signals, from: number) => {
    const p = dist.processes.get(s);
    let exit: number | undefined;
    if (p) {
      const killer = setTimeout(() => void p.stop('SIGKILL'), 60_000);
      await p.stop(signal);
      clearTimeout(killer);
      if (signal === 'SIGTERM') exit = performance.now() - from;
    }
    await dist.restart(s);
    return { readyAt: performance.now(), exit };
  };
  for (const s of DRILLED) await drill(`SIGKILL ${s}`, (from) => restart(s, 'SIGKILL', from));
  for (const s of DRILLED) await drill(`SIGTERM ${s}`, (from) => restart(s, 'SIGTERM', from));
  await drill('restart PostgreSQL', async () => {
    await pg.stop();
    await sleep(2000);
    pg = await startEmbeddedPostgres(pgOpts);
  });
  await drill('restart NATS', async () => {
    await nats.stop();
    await sleep(2000);
    nats = await startNatsServer(natsPort);
  });
  // dispatch replicas: the sender group shares the partitions among them (the stall is the group's rebalance)
  const addReplica = async () => {
    let r: Awaited<ReturnType<typeof dist.addReplica>> | undefined;
    await drill('a second dispatch replica joins', async () => {
      r = await dist.addReplica('dispatch');
      return { readyAt: performance.now() };
    });
    return r;
  };
  const dying = await addReplica();
  await drill('SIGKILL a dispatch replica (the other sends on)', async () => {
    await dying?.stop('SIGKILL');
  });
  const leaving = await addReplica();
  await drill('SIGTERM a dispatch replica (the other sends on)', async (from) => {
    await leaving?.stop('SIGTERM');
    return { exit: performance.now() - from };
  });

  running = false;
  await sender$;
  await signIns$;
  await Promise.all([...inFlight]);

  // everything accepted must end final
  const sql = new Client({ connectionString: pg.url() });
  await sql.connect();
  const uuids = [...accepted.values()];
  const finalStates = ['delivered', 'undelivered', 'rejected', 'no_routes', 'sent_failed'];
  const notFinal = async () => Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM unnest($1::uuid[]) u LEFT JOIN streams.message m ON m.uuid = u WHERE m.status IS NULL OR NOT (m.status = ANY($2))`, [uuids, finalStates])).rows[0].n);
  const drainFrom = performance.now();
  while ((await notFinal()) > 0 && performance.now() - drainFrom < 180_000) await sleep(1000);
  const neverFinal = await notFinal();
  const delivered = Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM streams.message WHERE uuid = ANY($1::uuid[]) AND status = 'delivered'`, [uuids])).rows[0].n);
  const inDispatch = Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM dispatch.message WHERE uuid = ANY($1::uuid[])`, [uuids])).rows[0].n);
  const flagged = Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND possible_duplicate`, [uuids])).rows[0].n);
  const byText = new Map<string, number>();
  for (const p of smsc.parts) byText.set(p.text, (byText.get(p.text) ?? 0) + 1);
  const reachedSmsc = [...accepted.keys()].filter((k) => byText.has(`drill ${k.slice(6)}`)).length;
  const resent = [...byText.entries()].filter(([t, n]) => t.startsWith('drill ') && n > 1).length;
  const lost = uuids.length - Math.min(inDispatch, reachedSmsc);
  // charges, once accounts' ledger has every charge and refund streams recorded (its consumer may lag on a loaded
  // machine; compared earlier, a refund not yet in the ledger looks like a charge twice)
  const ledgerBehind = async () =>
    Number(
      (
        await sql.query<{ n: string }>(
          `SELECT count(*) AS n FROM streams.message m
            WHERE m.uuid = ANY($1::uuid[])
              AND ((m.price_micros > 0 AND NOT EXISTS (SELECT 1 FROM accounts.balance_entry e WHERE e.kind = 'charge' AND e.source_id = m.uuid::text))
                OR (m.refunded_micros > 0 AND NOT EXISTS (SELECT 1 FROM accounts.balance_entry e WHERE e.kind = 'refund' AND e.source_id = m.uuid::text)))`,
          [uuids],
        )
      ).rows[0].n,
    );
  const ledgerFrom2 = performance.now();
  while ((await ledgerBehind()) > 0 && performance.now() - ledgerFrom2 < 120_000) await sleep(1000);
  const behind = await ledgerBehind();
  const cost = BigInt((await sql.query<{ c: string }>(`SELECT coalesce(sum(price_micros - refunded_micros), 0) AS c FROM streams.message WHERE uuid = ANY($1::uuid[])`, [uuids])).rows[0].c);
  const debit = balanceBefore - (await balanceOf());
  // a send accepted as two messages (its Idempotency-Key not holding): two rows of one drill text on the drill's stream
  const twice = (await sql.query<{ text: string; n: string }>(`SELECT text, count(*)::text AS n FROM streams.message WHERE stream_id = $1 AND text LIKE 'drill %' GROUP BY text HAVING count(*) > 1`, [stream.body.id])).rows;
  // ledger entries since the load began of messages the drill does not know (not the balance top-ups)
  const unknown = (await sql.query<{ kind: string; source_id: string; amount_micros: string }>(`SELECT kind, source_id, amount_micros::text FROM accounts.balance_entry WHERE id > $1 AND kind <> 'adjustment' AND NOT (source_id = ANY($2::text[]))`, [String(ledgerFrom), uuids])).rows;
  // messages whose ledger charge less refund is not their price less refund
  const mismatched = (
    await sql.query<{ uuid: string; price: string; refunded: string; ledger: string }>(
      `SELECT m.uuid::text, m.price_micros::text AS price, m.refunded_micros::text AS refunded, coalesce(-sum(e.amount_micros), 0)::text AS ledger
         FROM streams.message m LEFT JOIN accounts.balance_entry e ON e.source_id = m.uuid::text AND e.kind <> 'adjustment'
        WHERE m.uuid = ANY($1::uuid[]) GROUP BY m.uuid, m.price_micros, m.refunded_micros
       HAVING coalesce(-sum(e.amount_micros), 0) <> m.price_micros - m.refunded_micros`,
      [uuids],
    )
  ).rows;
  const chargedTwice = twice.length + unknown.filter((u) => u.kind === 'charge').length + mismatched.filter((m) => BigInt(m.ledger) > BigInt(m.price) - BigInt(m.refunded)).length;
  for (const t of twice) console.log(`charged twice: "${t.text}" accepted as ${t.n} messages`);
  for (const u of unknown) console.log(`ledger ${u.kind} of ${u.amount_micros} µ for ${u.source_id}, not a message of the drill`);
  for (const m of mismatched) console.log(`message ${m.uuid}: ledger ${m.ledger} µ against price ${m.price} less refund ${m.refunded}`);
  const imp = (await call<{ status: string; parsed: number; numberOfContacts: number; failed: number; invalid: number; duplicates: number }>('GET', `/import_lists/${upload.id}`, { token: (await until('sign-in', signIn)) })).body;
  // rows accounted for: contacts, rows refused (failed, which counts the invalid ones) and duplicates
  const importLost = IMPORT_ROWS - (imp.numberOfContacts + imp.failed + imp.duplicates);

  console.log(`machine: ${machine()} (shared with other engineers' runs)`);
  console.log(`processes: ${SERVICES.join(', ')} (from the README and deploy/.env.example), Kafka mock (kcat, 1 broker), nats-server, embedded PostgreSQL; faults on ${DRILLED.join(', ')}; load ${rate} sends/s through the gateway, a sign-in every 3 s, an import of ${IMPORT_ROWS} rows; settle ${settleSec} s after each event`);
  console.log(`ceiling (same load, no fault): longest gap between accepts ${(quiet.accept / 1000).toFixed(1)} s, between sends to the SMSC ${(quiet.submit / 1000).toFixed(1)} s`);
  console.log(`accepted: ${uuids.length} (${sendAttempts} attempts, ${sendErrors} answered otherwise or not at all and retried with the same Idempotency-Key)`);
  console.log(`delivered: ${delivered}`);
  console.log(`lost: ${lost} (accepted, then unknown to dispatch or never at the SMSC)`);
  console.log(`charged twice: ${chargedTwice} (balance debit ${debit} µ against ${cost} µ of accepted messages less refunds${debit === cost ? '' : ': OFF'}; ${behind} messages' charge or refund not in the ledger after 120 s)`);
  console.log(`never final: ${neverFinal}`);
  console.log(`import rows lost: ${importLost} (import ${imp.status}: ${imp.numberOfContacts} contacts, ${imp.invalid} invalid, ${imp.failed} failed, ${imp.duplicates} duplicates of ${IMPORT_ROWS})`);
  console.log(`sign-ins: ${signIns} succeeded, ${signInFailures} failed (during events)`);
  console.log(`resent: ${resent} messages reached the SMSC more than once; ${flagged} flagged possible_duplicate`);
  console.log('per event (s; target 10 s): longest stall of accepts / of sends to the SMSC | first accept / send after the fault | the restarted process healthy after, longest stall after that | SIGTERM to exit');
  for (const e of events) {
    const over = Math.max(e.accept, e.submit) > 10_000 ? (e.afterReady !== undefined && e.afterReady <= 10_000 ? '  over, within 10 s after the restart was healthy' : '  OVER') : '';
    console.log(`  ${e.name.padEnd(48)} ${s1(e.accept).padStart(6)} ${s1(e.submit).padStart(6)} | ${s1(e.firstAccept).padStart(6)} ${s1(e.firstSubmit).padStart(6)} | ${s1(e.boot).padStart(6)} ${s1(e.afterReady).padStart(6)} | ${s1(e.exit).padStart(5)}${over}`);
  }

  await sql.end();
  await dist.stop();
  await smsc.close();
  await smtp.close();
  await nats.stop();
  await kafka.stop();
  await pg.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  if (lost > 0 || chargedTwice !== 0 || debit !== cost || behind > 0 || neverFinal > 0 || importLost > 0) process.exit(1);
}

main(Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 20), process.argv[4] ? process.argv[4].split(',') : null).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
