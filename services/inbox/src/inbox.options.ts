import * as os from 'node:os';
import * as path from 'node:path';
import { INBOX_TOTALS_CAP } from '@switchboard/contracts';
import { Clock, SystemClock } from './clock';
import { LocalMediaStorage, MediaStorage, S3MediaStorage, type S3MediaOptions } from './media/storage';

export interface InboxModuleOptions {
  /** Run the inbox migrations at start (embedded mode, tests); distributed mode runs them first (compose, k8s). Default true. */
  migrationsRun?: boolean;
  /** How long a send request waits for streams' answer (OK or SENT_FAILED) before answering OK with `sending`. Default 5000 ms. */
  sendWaitMs?: number;
  /**
   * Where media bytes are kept: `{ dir }` a local directory (embedded mode; default the system's temporary directory),
   * `{ s3 }` an S3-compatible bucket (distributed mode: every replica sees every file), or a MediaStorage of one's own.
   */
  media?: { dir: string } | { s3: S3MediaOptions } | MediaStorage;
  /** The clock (tests freeze it for the WhatsApp 24-hour window). */
  clock?: Clock;
  /**
   * Seals the conversation context `POST /inbox/ai_context/{id}` hands to the integrations service's `inbox/respond`
   * (`GENAI_CONTEXT_KEY`, the same value there; at least 16 characters). Unset: the route answers E-GENAI_NOT_CONFIGURED.
   * docs/decisions/0041-generative-ai.md.
   */
  genAiContextKey?: string;
  /**
   * Where dispatch answers `GET /api/dispatch/inbound_media/{uuid}` (inbound WhatsApp and Telegram media, fetched with
   * the stream's token that only dispatch holds): distributed mode the dispatch service's (or the gateway's) URL;
   * default this process's own HTTP server (embedded mode, where dispatch runs in the same process).
   */
  dispatchUrl?: string;
  /** How long the first read of inbound media waits for dispatch and the provider. Default 40000 ms. */
  inboundMediaTimeoutMs?: number;
  /**
   * Totals no counter keeps (an agent's teams, a team or status filter, my_closed, assigned_to_me) are counted up to
   * one past this (docs/decisions/0058). Default INBOX_TOTALS_CAP (1000).
   */
  totalsCap?: number;
}

export interface ResolvedInboxOptions {
  migrationsRun: boolean;
  sendWaitMs: number;
  genAiContextKey: string | null;
  dispatchUrl: string | null;
  inboundMediaTimeoutMs: number;
  totalsCap: number;
}

export const INBOX_OPTIONS = Symbol('INBOX_OPTIONS');
export const INBOX_CONNECTION = 'inbox';
export const INBOX_SCHEMA = 'inbox';

export function resolveInboxOptions(o: InboxModuleOptions): ResolvedInboxOptions {
  const sendWaitMs = o.sendWaitMs ?? 5000;
  if (!Number.isInteger(sendWaitMs) || sendWaitMs < 0) throw new Error(`InboxModule: sendWaitMs must be a non-negative integer (got ${String(o.sendWaitMs)})`);
  if (o.genAiContextKey !== undefined && o.genAiContextKey.length < 16) throw new Error('InboxModule: genAiContextKey must be at least 16 characters');
  const totalsCap = o.totalsCap ?? INBOX_TOTALS_CAP;
  if (!Number.isInteger(totalsCap) || totalsCap < 1) throw new Error(`InboxModule: totalsCap must be a positive integer (got ${String(o.totalsCap)})`);
  return {
    migrationsRun: o.migrationsRun ?? true,
    sendWaitMs,
    genAiContextKey: o.genAiContextKey ?? null,
    dispatchUrl: o.dispatchUrl ? o.dispatchUrl.replace(/\/$/, '') : null,
    inboundMediaTimeoutMs: o.inboundMediaTimeoutMs ?? 40_000,
    totalsCap,
  };
}

export function createClock(o: InboxModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}

export function createMediaStorage(o: InboxModuleOptions): MediaStorage {
  const m = o.media;
  if (m instanceof MediaStorage) return m;
  if (m && 's3' in m) return new S3MediaStorage(m.s3);
  return new LocalMediaStorage(m && 'dir' in m ? m.dir : path.join(os.tmpdir(), 'switchboard-inbox-media'));
}
