/**
 * One dispatch process for the dispatch benches (dispatch-replicas, dispatch-crash): the Kafka driver, one PostgreSQL,
 * one SMPP vendor (the bench's local SMSC). Started by the benches through `startDispatchChild`; it tells its parent
 * it is ready over IPC and runs until killed (SIGTERM: a clean shutdown).
 *
 *   node dist/bench/dispatch-child.js <databaseUrl> <kafkaBrokers> <smppPort> [options as JSON]
 */
import 'reflect-metadata';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DevMailbox, generateSigningKeys, InMemoryRealtime, KafkaEventBus, PlatformModule, TokenVerifier } from '@switchboard/platform';
import { startNodeProcess, type NodeProcess } from '@switchboard/platform/testing';
import { DispatchModule, dispatchKafkaConsumerTuning, type DispatchModuleOptions } from '@switchboard/dispatch';

export interface DispatchChildOptions {
  clientId?: string;
  /** Merged over the dispatch standalone process's consumer settings. */
  consumer?: Record<string, number>;
  dispatcher?: NonNullable<DispatchModuleOptions['dispatcher']>;
  outboxBatchSize?: number;
  /** The SMPP vendor's connection settings merged over window 64, reconnect 100 ms. */
  smpp?: Record<string, unknown>;
}

/** Starts a dispatch child process and resolves once it has started (consumers subscribed, vendor bound or binding). */
export function startDispatchChild(url: string, brokers: string, smppPort: number, options: DispatchChildOptions = {}, execArgv: string[] = []): Promise<NodeProcess> {
  return startNodeProcess(path.join(__dirname, 'dispatch-child.js'), { ipc: true }, { args: [url, brokers, String(smppPort), JSON.stringify(options)], execArgv, stdio: 'inherit' });
}

async function main(url: string, brokers: string, smppPort: number, options: DispatchChildOptions): Promise<void> {
  const bus = new KafkaEventBus({ clientId: options.clientId ?? 'dispatch-bench', brokers: brokers.split(','), consumer: { ...dispatchKafkaConsumerTuning, partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100, ...options.consumer } });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: url, processName: 'dispatch' }),
      DispatchModule.register({
        seedVendors: [{ name: 'Bench SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port: smppPort, systemId: 'dispatch', password: 'secret', window: 64, reconnectMs: 100, ...options.smpp } }],
        dispatcher: options.dispatcher,
        ...(options.outboxBatchSize ? { outboxBatchSize: options.outboxBatchSize } : {}),
      }),
    ],
  })
  class ChildModule {}
  const app = await NestFactory.createApplicationContext(ChildModule, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.init();
  process.send?.('ready');
}

if (require.main === module) {
  const [url, brokers, port, json] = process.argv.slice(2);
  main(url, brokers, Number(port), json ? (JSON.parse(json) as DispatchChildOptions) : {}).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
