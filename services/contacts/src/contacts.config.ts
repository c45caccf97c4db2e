import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { ContactsModuleOptions } from './contacts.options';

/** The standalone contacts process's environment (distributed mode); shared names as in deploy/ and k8s/. */
export const contactsConfigSchema = z.object({
  PORT: env.port(3003),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** ES256 public key that verifies access tokens: PEM, or base64 of it. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required').transform(pemFromEnv),
  KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
  KAFKA_CREATE_TOPICS: env.bool(false),
  KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
  /** Compression of produced record batches (docs/decisions/0085). */
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  NATS_URL: env.list(['nats://127.0.0.1:4222']),
  /** Uploads and task files; shared by every replica (a volume), since any replica may resume an import. */
  CONTACTS_STORAGE_DIR: z.string().min(1).default('/var/lib/switchboard/contacts'),
  CONTACTS_MAX_UPLOAD_MB: env.int(100, 1),
  CONTACTS_WORKERS: env.int(0, 0),
  CONTACTS_BATCH_SIZE: env.int(10_000, 100),
  /** Which roles this process runs: `http,consumers,relay,schedulers` (imports and tasks run under schedulers). */
  PROCESS_ROLES: env.list(['http', 'consumers', 'relay', 'schedulers']),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export const loadContactsConfig = (e: NodeJS.ProcessEnv = process.env): ContactsConfig => loadConfig('contacts', contactsConfigSchema, e);

export const contactsMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadContactsMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('contacts-migrate', contactsMigrateConfigSchema, e);

export function contactsModuleOptionsFromConfig(c: ContactsConfig): ContactsModuleOptions {
  return {
    storageDir: c.CONTACTS_STORAGE_DIR,
    maxUploadBytes: c.CONTACTS_MAX_UPLOAD_MB * 1024 * 1024,
    workers: c.CONTACTS_WORKERS || undefined,
    batchSize: c.CONTACTS_BATCH_SIZE,
    migrationsRun: c.MIGRATIONS_RUN,
  };
}
