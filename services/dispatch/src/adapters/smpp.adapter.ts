import { Logger } from '@nestjs/common';
import { counter } from '@switchboard/platform';
import { concatUdh, decodeGsm7, decodeUcs2, encodeSms, isGsm7, parseConcatUdh, smppDataCoding, splitSms } from '../sms';
import { parseReceipt } from '../domain/dlr';
import { AimdPacer, type PacerState } from '../domain/aimd-pacer';
import { ProviderAdapter, type AdapterSink, type OutboundMessage, type QueryAnswer, type SendOutcome } from './provider-adapter';
import { PreparedDeliverSmResp, PreparedSubmitSm } from './smpp-codec';
import { installFastReader } from './smpp-reader';
import { EsmClass, smpp, SmppStatus, type SmppPdu, type SmppSession } from './smpp-lib';

export interface SmppAdapterConfig {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** Parallel binds (each with its own window and rate). Default 1. */
  connections?: number;
  /** Outstanding submit_sm per bind before waiting for responses. Default 64. */
  window?: number;
  /**
   * The most submit_sm per second per bind; 0 = no configured ceiling. Within it each bind finds the carrier's real
   * rate (AIMD on ESME_RTHROTTLED / ESME_RMSGQFUL, domain/aimd-pacer.ts). Default 0.
   */
  tps?: number;
  /**
   * Credit a bind may bank while its event loop is busy, in ms of traffic (token-bucket burst). Without it a stall
   * loses sending time and the long-run rate falls below `tps`; with it a stall is caught up afterwards. Default 100.
   */
  burstMs?: number;
  /** The pacer never slows a bind below this many submit_sm/s, however often the carrier throttles. Default 1. */
  minTps?: number;
  /** Default 30 000 ms. */
  enquireLinkMs?: number;
  /** A submit_sm without a response after this long is "unknown", never resent blindly. Default 30 000 ms. */
  submitTimeoutMs?: number;
  /** First reconnect delay, doubled up to 30 s. Default 500 ms. */
  reconnectMs?: number;
  /** Pause before a transient error (ESME_RSYSERR) is retried on the bind. Default 100 ms. */
  throttleBackoffMs?: number;
  /** Transient errors (ESME_RSYSERR, queue full) retried on the bind before giving the message back. Default 3. */
  transientRetries?: number;
  /**
   * How long this carrier's receipts may take before a message waiting for one is listed as overdue (read by the
   * super-admin listing, GET /api/service_type_manager/awaiting_receipts, not by the adapter). Default 1 h.
   */
  receiptOverdueMs?: number;
  sourceTon?: number;
  sourceNpi?: number;
  destTon?: number;
  destNpi?: number;
  /** The country of national-form numbers (TON 2) in MO messages (read by inbound handling, not the adapter). */
  moRegion?: string;
}

interface Part {
  from: string;
  to: string;
  udh: Uint8Array | null;
  body: Uint8Array;
  dataCoding: number;
  transient: number;
  /** The pacer's epoch when it was written: a throttle for it slows the bind only if no halving came since. */
  epoch: number;
  resolve: (r: PartResult) => void;
  /** The message's parts share it: once one is written the rest go too; before that, `held()` may stop them all. */
  message?: { written: boolean; stopped?: boolean; held?: () => boolean; gate?: { wait(): number; sent(): void } };
}

type PartResult = { kind: 'ok'; id: string } | { kind: 'rejected'; error: string } | { kind: 'retry'; error: string } | { kind: 'unknown'; error: string } | { kind: 'held' };

/** How far past gated parts a bind looks for one it may write (SmppAdapterConfig window's order of magnitude). */
const GATE_LOOKAHEAD = 256;

/** One bind: window, pacing (AIMD), back-off, enquire_link, reconnect. */
class SmppBind {
  private session: SmppSession | null = null;
  private bound = false;
  private stopped = false;
  private readonly queue: Part[] = [];
  private readonly inflight = new Map<number, { part: Part; timer: NodeJS.Timeout }>();
  readonly pacer: AimdPacer;
  private pausedUntil = 0;
  private reconnectDelay: number;
  private timer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private corked = false;
  private readonly throttled: { inc: () => void };

  constructor(
    private readonly cfg: Required<Pick<SmppAdapterConfig, 'window' | 'submitTimeoutMs' | 'reconnectMs' | 'throttleBackoffMs' | 'transientRetries' | 'enquireLinkMs'>> &
      SmppAdapterConfig,
    private readonly onDeliver: (pdu: SmppPdu, ack: () => void) => void,
    private readonly log: Logger,
    vendorId: string,
  ) {
    this.pacer = new AimdPacer({ maxRate: cfg.tps ?? 0, minRate: cfg.minTps ?? 1, burstMs: cfg.burstMs ?? 100 });
    // the same series as DispatchMetrics.throttles (services/dispatcher.service.ts)
    this.throttled = counter('switchboard_dispatch_throttles_total', 'Submits a carrier refused as throttled or queue full (sent again later), by vendor', ['vendor']).labels(vendorId);
    this.reconnectDelay = cfg.reconnectMs;
  }

  isBound(): boolean {
    return this.bound;
  }

  load(): number {
    return this.queue.length + this.inflight.size;
  }

  connect(): void {
    if (this.stopped) return;
    const session = smpp.connect({ url: `smpp://${this.cfg.host}:${this.cfg.port}`, auto_enquire_link_period: this.cfg.enquireLinkMs });
    // responses and receipts decoded by hand where that is the package's answer (docs/decisions/0197)
    installFastReader(session);
    this.session = session;
    session.on('connect', () => {
      session.socket.setNoDelay?.(true);
      session.bind_transceiver(
        { system_id: this.cfg.systemId, password: this.cfg.password, system_type: this.cfg.systemType ?? '', interface_version: 0x34 },
        (pdu) => {
          if (pdu.command_status !== SmppStatus.OK) {
            this.log.warn(`bind_transceiver refused (status ${pdu.command_status})`);
            session.close();
            return;
          }
          this.bound = true;
          this.reconnectDelay = this.cfg.reconnectMs;
          this.pump();
        },
      );
    });
    session.on('deliver_sm', (pdu: SmppPdu) =>
      this.onDeliver(pdu, () => {
        // Receipts are acknowledged in bursts, when their write batch commits: one socket write per burst.
        this.cork(session);
        session.send(new PreparedDeliverSmResp(pdu.sequence_number) as unknown as SmppPdu);
      }),
    );
    session.on('enquire_link', (pdu: SmppPdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: SmppPdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('error', (e: Error) => this.log.warn(`SMPP ${this.cfg.host}:${this.cfg.port}: ${e.message}`));
    session.on('close', () => this.onClose(session));
  }

  private onClose(session: SmppSession): void {
    if (this.session !== session) return;
    this.bound = false;
    this.session = null;
    // Written and unanswered: the SMSC may have them. They go back as unknown, never into the queue again.
    for (const [seq, { part, timer }] of this.inflight) {
      clearTimeout(timer);
      this.inflight.delete(seq);
      part.resolve({ kind: 'unknown', error: 'connection closed before submit_sm_resp' });
    }
    // Not written yet: back to the dispatcher, which routes them again (another vendor may be up, and this carrier
    // may not come back). Kept here they would wait for this bind's reconnect, for ever if it never comes.
    for (const part of this.queue.splice(0)) part.resolve({ kind: 'retry', error: 'SMPP connection lost before the submit was written' });
    if (this.stopped) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, 30000);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  enqueue(part: Part): void {
    this.queue.push(part);
    this.pump();
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, ms);
  }

  /** Gathers this tick's PDUs into one socket write (the binds run with Nagle off). */
  private cork(session: SmppSession): void {
    if (this.corked || !session.socket.cork) return;
    this.corked = true;
    session.socket.cork();
    process.nextTick(() => {
      this.corked = false;
      session.socket.uncork?.();
    });
  }

  private pump(): void {
    const session = this.session;
    if (session && this.bound && this.queue.length > 0) this.cork(session);
    while (this.bound && session && this.queue.length > 0 && this.inflight.size < this.cfg.window) {
      const pause = this.pausedUntil - Date.now();
      if (pause > 0) return this.schedule(pause);
      // the first part whose limits' windows have room (messages of other limits are not held behind a gated one)
      const next = this.nextWritable();
      if (next.index < 0) return this.schedule(next.wait);
      const wait = this.pacer.take();
      if (wait > 0) return this.schedule(wait);
      const part = next.index === 0 ? this.queue.shift()! : this.queue.splice(next.index, 1)[0];
      if (part.message && !part.message.written && (part.message.stopped || part.message.held?.())) {
        part.message.stopped = true;
        // its campaign was paused while it queued: nothing of the message is written
        this.pacer.refund();
        part.resolve({ kind: 'held' });
        continue;
      }
      const pdu = new PreparedSubmitSm({
        serviceType: '',
        sourceTon: this.cfg.sourceTon ?? 5,
        sourceNpi: this.cfg.sourceNpi ?? 0,
        source: part.from,
        destTon: this.cfg.destTon ?? 1,
        destNpi: this.cfg.destNpi ?? 1,
        destination: part.to,
        esmClass: part.udh ? EsmClass.UDHI : 0,
        registeredDelivery: 1,
        dataCoding: part.dataCoding,
        shortMessage: part.udh ? Buffer.concat([part.udh, part.body]) : part.body,
      });
      const written = session.send(pdu as unknown as SmppPdu, (resp) => this.onResponse(resp, part));
      if (!written) {
        // not written: safe to keep for the next bind
        this.pacer.refund();
        this.queue.unshift(part);
        return;
      }
      part.epoch = this.pacer.epoch;
      if (part.message && !part.message.written) {
        part.message.written = true;
        part.message.gate?.sent();
      }
      const timer = setTimeout(() => {
        if (!this.inflight.delete(pdu.sequence_number)) return;
        part.resolve({ kind: 'unknown', error: `no submit_sm_resp in ${this.cfg.submitTimeoutMs} ms` });
        this.pump();
      }, this.cfg.submitTimeoutMs);
      this.inflight.set(pdu.sequence_number, { part, timer });
    }
  }

  /**
   * The queue's first part that may be written now under its message's gate (a message's first part asks; the rest of
   * a written message go), looking at most GATE_LOOKAHEAD parts ahead; else the shortest wait among them.
   */
  private nextWritable(): { index: number; wait: number } {
    let wait = Infinity;
    const n = Math.min(this.queue.length, GATE_LOOKAHEAD);
    for (let i = 0; i < n; i++) {
      const m = this.queue[i].message;
      const gate = m && !m.written && !m.stopped ? m.gate : undefined;
      if (!gate) return { index: i, wait: 0 };
      const w = gate.wait();
      if (w <= 0) return { index: i, wait: 0 };
      if (w < wait) wait = w;
    }
    return { index: -1, wait };
  }

  private onResponse(resp: SmppPdu, part: Part): void {
    const entry = this.inflight.get(resp.sequence_number);
    if (!entry || entry.part !== part) return; // timed out already
    clearTimeout(entry.timer);
    this.inflight.delete(resp.sequence_number);
    const status = resp.command_status;
    if (status === SmppStatus.OK) {
      this.pacer.onAccepted(this.queue.length > 0);
      part.resolve({ kind: 'ok', id: String(resp.message_id) });
    } else if (status === SmppStatus.THROTTLED || status === SmppStatus.MSGQFUL) {
      // The SMSC refused it without taking it: the bind slows down (once per throttle episode) and sends it again,
      // ahead of the rest of its queue. Never failed, never counted as an attempt.
      this.pacer.onThrottled(part.epoch);
      this.throttled.inc();
      this.queue.unshift(part);
    } else if (status === SmppStatus.SYSERR && part.transient < this.cfg.transientRetries) {
      part.transient++;
      this.pausedUntil = Date.now() + this.cfg.throttleBackoffMs;
      this.queue.unshift(part);
    } else if (status === SmppStatus.SYSERR) {
      part.resolve({ kind: 'retry', error: `submit_sm failed: ESME status 0x${status.toString(16)}` });
    } else {
      part.resolve({ kind: 'rejected', error: `submit_sm refused: ESME status 0x${status.toString(16)}` });
    }
    this.pump();
  }

  /**
   * query_sm for one accepted part (SMPP 3.4 4.8). The answer's message_state (5.2.28): 2 DELIVERED is delivered; 3
   * EXPIRED, 4 DELETED, 5 UNDELIVERABLE and 8 REJECTED are undelivered; 0 SCHEDULED, 1 ENROUTE, 6 ACCEPTED and 7
   * UNKNOWN are still pending. A refusal (ESME_RQUERYFAIL, ESME_RINVCMDID from carriers without query_sm), a generic
   * nack or no answer within the submit timeout is "failed": the message is left as it is.
   */
  query(messageId: string, sender: string): Promise<QueryAnswer> {
    const session = this.session;
    if (!session || !this.bound) return Promise.resolve({ kind: 'failed', error: 'bind not up' });
    return new Promise<QueryAnswer>((resolve) => {
      let done = false;
      const finish = (a: QueryAnswer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(a);
      };
      const timer = setTimeout(() => finish({ kind: 'failed', error: `no query_sm_resp in ${this.cfg.submitTimeoutMs} ms` }), this.cfg.submitTimeoutMs);
      const pdu = new smpp.PDU('query_sm', {
        message_id: messageId,
        source_addr_ton: this.cfg.sourceTon ?? 5,
        source_addr_npi: this.cfg.sourceNpi ?? 0,
        source_addr: sender,
      });
      const written = session.send(pdu, (resp: SmppPdu) => {
        if (resp.command !== 'query_sm_resp' || resp.command_status !== SmppStatus.OK) {
          finish({ kind: 'failed', error: `query_sm refused: ${resp.command} status 0x${resp.command_status.toString(16)}` });
          return;
        }
        finish(queryAnswer(Number(resp.message_state), Number(resp.error_code ?? 0), resp.final_date));
      });
      if (!written) finish({ kind: 'failed', error: 'query_sm not written' });
    });
  }

  /** Unsent parts go back to the dispatcher as retryable (nothing was written). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const part of this.queue.splice(0)) part.resolve({ kind: 'retry', error: 'adapter stopping' });
    const session = this.session;
    if (!session) return;
    await new Promise<void>((resolve) => {
      const done = setTimeout(() => session.destroy(() => resolve()), 1000);
      if (this.bound) {
        session.unbind({}, () => {
          clearTimeout(done);
          session.close(() => resolve());
        });
      } else {
        clearTimeout(done);
        session.destroy(() => resolve());
      }
    });
    for (const [, { part, timer }] of this.inflight) {
      clearTimeout(timer);
      part.resolve({ kind: 'unknown', error: 'adapter stopped before submit_sm_resp' });
    }
    this.inflight.clear();
  }
}

/** SMPP 3.4 5.2.28 message_state, as a query answer. */
const MESSAGE_STATE: Record<number, string> = { 0: 'SCHEDULED', 1: 'ENROUTE', 2: 'DELIVERED', 3: 'EXPIRED', 4: 'DELETED', 5: 'UNDELIVERABLE', 6: 'ACCEPTED', 7: 'UNKNOWN', 8: 'REJECTED', 9: 'SKIPPED' };

export function queryAnswer(state: number, errorCode: number, finalDate: unknown): QueryAnswer {
  const name = MESSAGE_STATE[state] ?? `state ${state}`;
  const at = finalDate instanceof Date && !Number.isNaN(finalDate.getTime()) ? finalDate : new Date();
  if (state === 2) return { kind: 'final', outcome: 'delivered', error: null, at };
  if (state === 3 || state === 4 || state === 5 || state === 8) {
    return { kind: 'final', outcome: 'undelivered', error: `${name} err:${String(errorCode).padStart(3, '0')} (query_sm)`, at };
  }
  return { kind: 'pending', state: name };
}

interface MoBuffer {
  parts: Map<number, string>;
  total: number;
  firstAt: number;
}

/**
 * SMPP 3.4 transceiver client on the `smpp` package. Long messages go out as UDH-concatenated parts (153 septets /
 * 67 UCS-2 units), every part asks for a receipt (registered_delivery 1) and its message_id is kept, so each part's
 * receipt is followed. Receipts and MO messages are acknowledged (deliver_sm_resp) only once stored.
 */
export class SmppAdapter extends ProviderAdapter {
  readonly kind = 'smpp';
  private readonly binds: SmppBind[] = [];
  private sink: AdapterSink | null = null;
  private next = 0;
  private reference = Math.floor(Math.random() * 256);
  private readonly mo = new Map<string, MoBuffer>();
  private readonly log: Logger;
  private readonly cfg: SmppAdapterConfig & Required<Pick<SmppAdapterConfig, 'window' | 'submitTimeoutMs' | 'reconnectMs' | 'throttleBackoffMs' | 'transientRetries' | 'enquireLinkMs'>>;

  constructor(vendorId: string, config: SmppAdapterConfig) {
    super(vendorId);
    this.cfg = {
      window: 64,
      submitTimeoutMs: 30000,
      reconnectMs: 500,
      throttleBackoffMs: 100,
      transientRetries: 3,
      enquireLinkMs: 30000,
      ...config,
    };
    this.log = new Logger(`SmppAdapter(${vendorId})`);
  }

  async start(sink: AdapterSink): Promise<void> {
    this.sink = sink;
    const n = Math.max(1, this.cfg.connections ?? 1);
    for (let i = 0; i < n; i++) {
      const bind = new SmppBind(this.cfg, (pdu, ack) => this.onDeliver(pdu, ack), this.log, this.vendorId);
      this.binds.push(bind);
      bind.connect();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.binds.map((b) => b.stop()));
    this.binds.length = 0;
  }

  ready(): boolean {
    return this.binds.some((b) => b.isBound());
  }

  /** Each bind's pacer: current rate, the rate last throttled, and its counters (health, tests, benchmarks). */
  pacing(): PacerState[] {
    return this.binds.map((b) => b.pacer.state());
  }

  capacity(): number {
    // A bind keeps a queue of up to three windows behind the one on the wire: enough to stay busy while the next
    // write batch commits, small enough that a crash flags few messages as possible duplicates.
    const perBind = this.cfg.window * 4;
    return this.binds.reduce((sum, b) => sum + (b.isBound() ? Math.max(0, perBind - b.load()) : 0), 0);
  }

  override readonly canQuery = true;

  /** Asks over the least loaded bound bind: any bind of the same system id may be asked about any message. */
  override query(part: { providerMessageId: string; sender: string }): Promise<QueryAnswer> {
    const bind = this.pick();
    if (!bind) return Promise.resolve({ kind: 'failed', error: 'no SMPP bind is up' });
    return bind.query(part.providerMessageId, part.sender);
  }

  /** The least loaded bound bind (round-robin among equals). */
  private pick(): SmppBind | null {
    let best: SmppBind | null = null;
    for (let i = 0; i < this.binds.length; i++) {
      const b = this.binds[(this.next + i) % this.binds.length];
      if (b.isBound() && (!best || b.load() < best.load())) best = b;
    }
    this.next = (this.next + 1) % Math.max(1, this.binds.length);
    return best;
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const bind = this.pick();
    if (!bind) return { kind: 'retry', error: 'no SMPP bind is up', afterMs: 1000 };
    const encoding = message.encoding ?? (isGsm7(message.text) ? 'GSM7' : 'UCS2');
    const texts = splitSms(message.text, encoding);
    const dataCoding = smppDataCoding(encoding);
    const ref = (this.reference = (this.reference + 1) & 0xff);
    const shared = { written: false, held: message.held, gate: message.gate };
    const results = await Promise.all(
      texts.map(
        (text, i) =>
          new Promise<PartResult>((resolve) => {
            const part: Part = {
              udh: texts.length > 1 ? concatUdh(ref, texts.length, i + 1) : null,
              body: encodeSms(text, encoding),
              dataCoding,
              transient: 0,
              epoch: 0,
              resolve,
              from: message.sender,
              to: message.destination.replace(/^\+/, ''),
              message: shared,
            };
            bind.enqueue(part);
          }),
      ),
    );
    const bad = results.find((r) => r.kind !== 'ok');
    if (!bad) return { kind: 'accepted', providerIds: results.map((r) => (r as { id: string }).id) };
    if (results.every((r) => r.kind === 'held')) return { kind: 'held' };
    // Some parts may have been taken: an unknown part makes the whole message unknown; otherwise the worst wins.
    const unknown = results.find((r) => r.kind === 'unknown');
    if (unknown && unknown.kind === 'unknown') return { kind: 'unknown', error: unknown.error };
    const anyOk = results.some((r) => r.kind === 'ok');
    if (bad.kind === 'rejected') return { kind: 'rejected', error: bad.error };
    if (anyOk) return { kind: 'unknown', error: `some parts were accepted, some not: ${bad.kind === 'retry' ? bad.error : ''}` };
    return { kind: 'retry', error: bad.kind === 'retry' ? bad.error : 'retry' };
  }

  private onDeliver(pdu: SmppPdu, ack: () => void): void {
    const sink = this.sink;
    if (!sink) return;
    const esm = Number(pdu.esm_class ?? 0);
    const sm = shortMessageOf(pdu);
    if ((esm & EsmClass.RECEIPT_MASK) === EsmClass.RECEIPT || (esm & EsmClass.RECEIPT_MASK) === 0x20) {
      const parsed = parseReceipt(sm.text, {
        receiptedMessageId: typeof pdu.receipted_message_id === 'string' ? pdu.receipted_message_id : null,
        messageState: typeof pdu.message_state === 'number' ? pdu.message_state : null,
      });
      // Unreadable or intermediate (ENROUTE, ACCEPTD): acknowledged so the SMSC stops resending what moves nothing.
      if (!parsed || parsed.outcome === 'intermediate') {
        ack();
        return;
      }
      sink
        .receipt({
          vendorId: this.vendorId,
          providerMessageId: parsed.providerMessageId,
          outcome: parsed.outcome,
          error: parsed.outcome === 'delivered' ? null : `${parsed.stat} err:${parsed.err ?? ''}`,
          at: new Date(),
          // a receipt comes from the handset's address: the destination of the message it reports on
          destination: typeof pdu.source_addr === 'string' && pdu.source_addr ? pdu.source_addr : null,
        })
        .then(ack, (e: unknown) => this.log.error(`receipt not stored, left unacknowledged: ${String(e)}`));
      return;
    }
    // Mobile-originated (two-way): reassemble concatenated parts before handing it on.
    const from = String(pdu.source_addr ?? '');
    const to = String(pdu.destination_addr ?? '');
    let text = sm.text;
    const concat = sm.udh ? concatOf(sm.udh) : null;
    if (concat && concat.total > 1) {
      const key = `${from}>${to}#${concat.reference}`;
      const buf = this.mo.get(key) ?? { parts: new Map<number, string>(), total: concat.total, firstAt: Date.now() };
      buf.parts.set(concat.sequence, sm.text);
      this.mo.set(key, buf);
      for (const [k, b] of this.mo) if (Date.now() - b.firstAt > 10 * 60_000) this.mo.delete(k);
      if (buf.parts.size < buf.total) {
        ack();
        return;
      }
      this.mo.delete(key);
      text = [...buf.parts.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t).join('');
    }
    sink
      .inbound({
        vendorId: this.vendorId,
        channel: 'sms',
        accountPhone: to,
        contactPhone: from.startsWith('+') ? from : `+${from}`,
        accountPhoneTon: Number(pdu.dest_addr_ton ?? 0),
        contactPhoneTon: Number(pdu.source_addr_ton ?? 0),
        contactName: null,
        messageType: 'text',
        body: text,
        media: null,
        providerMessageId: `${from}:${to}:${concat?.reference ?? ''}:${pdu.sequence_number}:${Date.now()}`,
        receivedAt: new Date(),
      })
      .then(ack, (e: unknown) => this.log.error(`inbound not stored, left unacknowledged: ${String(e)}`));
  }
}

/**
 * The smpp package decodes short_message (or message_payload) by data_coding into `{ message, udh }`, the UDH as a
 * list of information elements; a Buffer comes through when it could not.
 */
function shortMessageOf(pdu: SmppPdu): { text: string; udh: Buffer[] | null } {
  const sm = pdu.short_message as { message?: string | Buffer; udh?: Buffer[] } | Buffer | undefined;
  const payload = pdu.message_payload as { message?: string | Buffer; udh?: Buffer[] } | Buffer | undefined;
  const empty = (v: typeof sm) => !v || (Buffer.isBuffer(v) ? v.length === 0 : !v.message || v.message.length === 0);
  const pick = empty(sm) ? payload : sm;
  if (!pick) return { text: '', udh: null };
  if (Buffer.isBuffer(pick)) return { text: decodeText(pick, Number(pdu.data_coding ?? 0)), udh: null };
  const m = pick.message;
  const text = Buffer.isBuffer(m) ? decodeText(m, Number(pdu.data_coding ?? 0)) : (m ?? '');
  return { text, udh: pick.udh && pick.udh.length ? pick.udh : null };
}

/** Concatenation IE (0x00 8-bit or 0x08 16-bit reference) among the UDH elements. */
function concatOf(elements: Buffer[]): { reference: number; total: number; sequence: number } | null {
  for (const ie of elements) {
    const header = Buffer.concat([Buffer.from([ie.length]), ie]);
    const c = parseConcatUdh(header);
    if (c) return { reference: c.reference, total: c.total, sequence: c.sequence };
  }
  return null;
}

function decodeText(bytes: Uint8Array, dataCoding: number): string {
  const coding = dataCoding & 0x0f;
  if (coding === 0x08) return decodeUcs2(bytes);
  if (coding === 0x03 || coding === 0x01) return Buffer.from(bytes).toString('latin1');
  return decodeGsm7(bytes);
}
