import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import type { Delimiter, FileRow } from './csv-parser';
import type { BatchResult, RowMapping } from './row-processor';

/** What a worker answers: the batch's COPY lines as UTF-8 bytes. */
export type WorkerResult = Omit<BatchResult, 'copy'> & { copy: Uint8Array };

interface Pending {
  resolve: (r: WorkerResult) => void;
  reject: (e: Error) => void;
}

/** A batch for a worker: rows read by the main thread, or raw CSV bytes of whole records. */
export type WorkerBatch =
  | { kind: 'rows'; rows: FileRow[] }
  | { kind: 'csv'; bytes: Uint8Array; firstLine: number; delimiter: Delimiter; skipFirst: boolean };

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

const log = new Logger('contacts');

export const defaultWorkerCount = (): number => Math.max(1, Math.min(4, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length));

/**
 * Worker threads that validate phone numbers (libphonenumber-js, the CPU-heavy part of an import) and write the
 * staging COPY lines, so that every core works while the main thread reads the file and feeds PostgreSQL.
 * Batches go to the worker with the fewest in flight; results come back as promises, in any order.
 */
export class RowWorkerPool {
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size = defaultWorkerCount()) {}

  run(batch: WorkerBatch, mapping: RowMapping): Promise<WorkerResult> {
    if (this.closed) return Promise.reject(new Error('the import worker pool is closed'));
    const slot = this.pick();
    const id = this.nextId++;
    const result = new Promise<WorkerResult>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      // raw bytes move to the worker (transferred, not copied)
      if (batch.kind === 'csv') slot.worker.postMessage({ id, mapping, ...batch }, [batch.bytes.buffer as ArrayBuffer]);
      else slot.worker.postMessage({ id, mapping, ...batch });
    });
    // a run that stopped early leaves batches nobody awaits; their rejection at close is expected, not unhandled
    result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private pick(): Slot {
    if (this.slots.length < this.size) {
      const busyAll = this.slots.every((s) => s.pending.size > 0);
      if (busyAll) return this.spawn();
    }
    return this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  private spawn(): Slot {
    // a batch needs a few MB: small heaps keep a million-row import's memory flat
    const worker = new Worker(path.join(__dirname, 'row-worker.cjs'), { resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 16 } });
    // an idle pool must not keep the process alive
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    const failAll = (e: Error) => {
      for (const p of slot.pending.values()) p.reject(e);
      slot.pending.clear();
      this.slots = this.slots.filter((s) => s !== slot);
    };
    worker.on('message', (msg: { id: number; result?: WorkerResult; error?: string }) => {
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      // the first line reaches the import's error field; the stack stays in the log
      if (msg.error !== undefined || !msg.result) {
        if (msg.error) log.error(msg.error);
        p.reject(new Error((msg.error ?? 'an import worker gave no result').split('\n')[0]));
      }
      else p.resolve(msg.result);
    });
    worker.on('error', (e) => failAll(e instanceof Error ? e : new Error(String(e))));
    worker.on('exit', (code) => failAll(new Error(`an import worker exited (${code})`)));
    this.slots.push(slot);
    return slot;
  }
}
