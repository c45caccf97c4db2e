import type { AddressInfo } from 'node:net';
import { formatReceipt } from '../domain/dlr';
import { EsmClass, smpp, SmppStatus, type SmppPdu, type SmppSession } from '../adapters/smpp-lib';
import { decodeGsm7, decodeUcs2, encodeUcs2, concatUdh, encodeGsm7, isGsm7 } from '../sms';
import { TokenBucket } from '../domain/token-bucket';

export interface SubmittedPart {
  messageId: string;
  source: string;
  destination: string;
  dataCoding: number;
  esmClass: number;
  /** The concatenation header when UDHI was set: [reference, total, sequence]. */
  concat: [number, number, number] | null;
  text: string;
  at: number;
  /** The session it came on: 1 for the first bound, 2 for the second... (which replica sent it, in benches). */
  session: number;
}

export interface SmppPeerOptions {
  systemId?: string;
  password?: string;
  /** Send a receipt for each accepted part. Default true. */
  receipts?: boolean;
  /** Share of receipts that say DELIVRD (others UNDELIV). Default 1. */
  deliveryRatio?: number;
  /** submit_sm_resp this late, ms (a slow SMSC: the ESME's window fills and its queued submits wait). Default 0. */
  responseDelayMs?: number;
  /** Receipt delay after the submit_sm_resp, ms. Default 0. */
  receiptDelayMs?: number;
  /** Send the receipt before the submit_sm_resp (an SMSC race real ones have). Default false. */
  receiptBeforeResponse?: boolean;
  /** Send each receipt twice. Default false. */
  duplicateReceipts?: boolean;
  /** Answer the first N submit_sm with ESME_RTHROTTLED. Default 0. */
  throttleFirst?: number;
  /**
   * The carrier's rate limit: submit_sm/s this SMSC takes across all binds (a token bucket refilled at this rate);
   * above it, ESME_RTHROTTLED. 0 = none. Default 0.
   */
  throttleRate?: number;
  /** What the token bucket of `throttleRate` holds: the burst it lets through after a quiet spell. Default rate / 20. */
  throttleBurst?: number;
  /** Never answer submit_sm whose destination is in this set (to test "unknown"). */
  silentFor?: Set<string>;
  /** Leave the first submit_sm to these destinations unanswered, answer the next ones. */
  silentOnceFor?: Set<string>;
  /** Refuse submit_sm to these destinations with ESME_RINVDSTADR. */
  rejectFor?: Set<string>;
  /** Receipts for these destinations say UNDELIV (whatever `deliveryRatio`). */
  undeliveredFor?: Set<string>;
  /** Keep submitted parts for assertions (tests; off for benchmarks). Default true. */
  record?: boolean;
  /** Also fill receipted_message_id and message_state TLVs. Default true. */
  receiptTlvs?: boolean;
  /**
   * Keep receipts until the ESME answers deliver_sm_resp and send the unanswered ones again on its next bind, as
   * store-and-forward SMSCs do (needed when the client may die between a receipt and its acknowledgement). Default false.
   */
  redeliverUnacked?: boolean;
  /**
   * How it answers query_sm (SMPP 3.4 4.8): `answer` with the message's state (DELIVERED or UNDELIVERABLE, as its
   * receipt would have said); `pending` with ENROUTE; `refuse` with ESME_RINVCMDID, as carriers without query_sm do.
   * Unknown ids get ESME_RQUERYFAIL. The peer remembers message states only when this is set. Default none: refused.
   */
  querySm?: 'answer' | 'pending' | 'refuse';
}

/**
 * A real SMPP 3.4 server (the `smpp` package's) on 127.0.0.1, standing in for an SMSC in tests and benchmarks:
 * binds, submit_sm with message ids, receipts as deliver_sm in the appendix-B text format, MO messages, throttling.
 */
/** How long the peer keeps offering a mobile-originated message that no session answered. */
const MO_FORWARD_MS = 60_000;

export class SmppPeer {
  readonly parts: SubmittedPart[] = [];
  submitted = 0;
  receiptsSent = 0;
  binds = 0;
  /** submit_sm timestamps per second bucket, for rate checks. */
  readonly perSecond = new Map<number, number>();
  private server = smpp.createServer((s) => this.onSession(s));
  private seq = 0;
  private throttled = 0;
  /** submit_sm answered ESME_RTHROTTLED (throttleFirst and throttleRate). */
  throttledResponses = 0;
  private limit: TokenBucket | null;
  private readonly opts: Required<Omit<SmppPeerOptions, 'silentFor' | 'silentOnceFor' | 'rejectFor' | 'undeliveredFor' | 'querySm'>> &
    Pick<SmppPeerOptions, 'silentFor' | 'silentOnceFor' | 'rejectFor' | 'undeliveredFor' | 'querySm'>;
  /** query_sm received, and the states remembered for them (when `querySm` is set). */
  queries = 0;
  private readonly states = new Map<string, { delivered: boolean; at: Date }>();
  /** Times `restart()` was called. */
  restarts = 0;
  readonly sessions = new Set<SmppSession>();
  /** Sessions whose bind succeeded (MO messages go to the newest), until they close. */
  private readonly bound = new Set<SmppSession>();
  private readonly sessionNo = new WeakMap<SmppSession, number>();
  /** Receipts sent and not acknowledged yet (redeliverUnacked). */
  private readonly unacked = new Map<string, Record<string, unknown>>();
  redelivered = 0;

  constructor(options: SmppPeerOptions = {}) {
    this.opts = {
      systemId: 'dispatch',
      password: 'secret',
      receipts: true,
      deliveryRatio: 1,
      receiptDelayMs: 0,
      responseDelayMs: 0,
      receiptBeforeResponse: false,
      duplicateReceipts: false,
      throttleFirst: 0,
      record: true,
      receiptTlvs: true,
      redeliverUnacked: false,
      throttleRate: 0,
      throttleBurst: 0,
      ...options,
    };
    const rate = this.opts.throttleRate;
    this.limit = rate > 0 ? new TokenBucket(rate, this.opts.throttleBurst || Math.max(1, Math.ceil(rate / 20))) : null;
  }

  /** The carrier changes its rate limit (submit_sm/s across all binds; 0: none), as a congested route does. */
  setThrottleRate(rate: number, burst = Math.max(1, Math.ceil(rate / 20))): void {
    this.limit = rate > 0 ? new TokenBucket(rate, burst) : null;
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', () => resolve()));
    return (this.server.address() as AddressInfo).port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sessions) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Restarts like an SMSC without persistence: every connection dropped, the port closed and opened again, and
   * message ids numbered from the start again (so ids already given out are given out anew: carriers do this).
   */
  async restart(): Promise<void> {
    const port = this.port;
    await this.close();
    this.seq = 0;
    this.unacked.clear();
    this.states.clear();
    this.restarts++;
    await this.listen(port);
  }

  /** Drops every connection (the client should reconnect and rebind). */
  dropConnections(): void {
    for (const s of this.sessions) s.destroy();
  }

  private onSession(session: SmppSession): void {
    this.sessions.add(session);
    session.socket.setNoDelay?.(true);
    session.on('close', () => {
      this.sessions.delete(session);
      this.bound.delete(session);
    });
    session.on('error', () => undefined);
    session.on('bind_transceiver', (pdu: SmppPdu) => {
      if (pdu.system_id !== this.opts.systemId || pdu.password !== this.opts.password) {
        session.send(pdu.response({ command_status: SmppStatus.BINDFAIL }));
        session.close();
        return;
      }
      this.binds++;
      this.bound.add(session);
      this.sessionNo.set(session, this.binds);
      session.send(pdu.response({ system_id: 'peer-smsc' }));
      if (this.opts.redeliverUnacked) {
        for (const [id, params] of this.unacked) {
          this.redelivered++;
          session.deliver_sm(params, (resp: SmppPdu) => {
            if (resp.command_status === 0) this.unacked.delete(id);
          });
        }
      }
    });
    session.on('enquire_link', (pdu: SmppPdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: SmppPdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('deliver_sm_resp', () => undefined);
    session.on('query_sm', (pdu: SmppPdu) => {
      this.queries++;
      const mode = this.opts.querySm;
      if (!mode || mode === 'refuse') {
        session.send(pdu.response({ command_status: 0x03 })); // ESME_RINVCMDID
        return;
      }
      const id = String(pdu.message_id);
      const known = this.states.get(id);
      if (!known) {
        session.send(pdu.response({ command_status: 0x67, message_id: id })); // ESME_RQUERYFAIL
        return;
      }
      const state = mode === 'pending' ? 1 : known.delivered ? 2 : 5;
      session.send(pdu.response({ message_id: id, final_date: mode === 'pending' ? '' : known.at, message_state: state, error_code: known.delivered ? 0 : 1 }));
    });
    let corked = false;
    session.on('submit_sm', (pdu: SmppPdu) => {
      // A tick's responses and receipts leave in one socket write, as a production SMSC batches them.
      if (!corked && session.socket.cork) {
        corked = true;
        session.socket.cork();
        process.nextTick(() => {
          corked = false;
          session.socket.uncork?.();
        });
      }
      this.onSubmit(session, pdu);
    });
  }

  private onSubmit(session: SmppSession, pdu: SmppPdu): void {
    const destination = String(pdu.destination_addr);
    const first = this.throttled < this.opts.throttleFirst;
    if (first || (this.limit && this.limit.take() > 0)) {
      if (first) this.throttled++;
      this.throttledResponses++;
      session.send(pdu.response({ command_status: SmppStatus.THROTTLED }));
      return;
    }
    if (this.opts.silentFor?.has(destination)) return;
    if (this.opts.silentOnceFor?.delete(destination)) return;
    if (this.opts.rejectFor?.has(destination)) {
      session.send(pdu.response({ command_status: SmppStatus.INVDSTADR }));
      return;
    }
    const id = (++this.seq).toString(16).padStart(10, '0');
    this.submitted++;
    const sec = Math.floor(Date.now() / 1000);
    this.perSecond.set(sec, (this.perSecond.get(sec) ?? 0) + 1);
    if (this.opts.record) this.parts.push(this.describe(pdu, id, this.sessionNo.get(session) ?? 0));
    const delivered = !this.opts.undeliveredFor?.has(destination) && (this.opts.deliveryRatio >= 1 || Math.random() < this.opts.deliveryRatio);
    if (this.opts.querySm) this.states.set(id, { delivered, at: new Date() });
    const receipt = () => this.sendReceipt(session, id, pdu, delivered ? 'DELIVRD' : 'UNDELIV');
    const respond = () => {
      if (this.opts.receipts && this.opts.receiptBeforeResponse) receipt();
      session.send(pdu.response({ message_id: id }));
      if (this.opts.receipts && !this.opts.receiptBeforeResponse) {
        if (this.opts.receiptDelayMs > 0) setTimeout(receipt, this.opts.receiptDelayMs);
        else receipt();
      }
    };
    if (this.opts.responseDelayMs > 0) setTimeout(respond, this.opts.responseDelayMs);
    else respond();
  }

  sendReceipt(session: SmppSession, id: string, submit: Record<string, unknown>, stat: string): void {
    const text = formatReceipt(id, stat);
    const params: Record<string, unknown> = {
      source_addr: submit.destination_addr,
      destination_addr: submit.source_addr,
      esm_class: EsmClass.RECEIPT,
      data_coding: 0,
      short_message: Buffer.from(encodeGsm7(text)),
      ...(this.opts.receiptTlvs ? { receipted_message_id: id, message_state: stat === 'DELIVRD' ? 2 : 5 } : {}),
    };
    if (this.opts.redeliverUnacked) this.unacked.set(id, params);
    const send = () =>
      session.deliver_sm(params, (resp: SmppPdu) => {
        if (resp.command_status === 0) this.unacked.delete(id);
      });
    send();
    this.receiptsSent++;
    if (this.opts.duplicateReceipts) send();
  }

  /** A mobile-originated SMS to `to` (our number) from `from`, split with UDH when long; `ton` their types of number. */
  sendMo(from: string, to: string, text: string, ton: { source?: number; dest?: number } = {}): void {
    const gsm = isGsm7(text);
    const per = gsm ? 153 : 67;
    const single = gsm ? 160 : 70;
    const chunks: string[] = [];
    if ((gsm ? encodeGsm7(text).length : text.length) <= single) chunks.push(text);
    else for (let i = 0; i < text.length; i += per) chunks.push(text.slice(i, i + per));
    const ref = 0x42;
    const parts = chunks.map((chunk, i) => {
      const body = Buffer.from(gsm ? encodeGsm7(chunk) : encodeUcs2(chunk));
      const udh = chunks.length > 1 ? Buffer.from(concatUdh(ref, chunks.length, i + 1)) : null;
      return {
        source_addr: from,
        destination_addr: to,
        ...(ton.source === undefined ? {} : { source_addr_ton: ton.source }),
        ...(ton.dest === undefined ? {} : { dest_addr_ton: ton.dest }),
        esm_class: udh ? EsmClass.UDHI : 0,
        data_coding: gsm ? 0 : 8,
        short_message: udh ? Buffer.concat([udh, body]) : body,
      };
    });
    void this.forwardMo(parts, Date.now() + MO_FORWARD_MS);
  }

  /**
   * Store and forward, as an SMSC does with a mobile-originated message: each part goes to the newest bound session
   * and is kept until a deliver_sm_resp answers it. A session that closes first, no answer within 5 s, or no bound
   * session at all (the ESME is rebinding) means the part is offered again, until `deadline`.
   */
  private async forwardMo(parts: Array<Record<string, unknown>>, deadline: number): Promise<void> {
    for (const params of parts) {
      while (Date.now() < deadline) {
        const session = [...this.bound].pop();
        if (session && (await this.offerMo(session, params))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** True once the session answered the part; false if it closed or stayed silent for 5 s. */
  private offerMo(session: SmppSession, params: Record<string, unknown>): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (answered: boolean) => {
        clearTimeout(timer);
        session.removeListener('close', closed);
        resolve(answered);
      };
      const closed = () => done(false);
      const timer = setTimeout(() => done(false), 5000);
      session.once('close', closed);
      session.deliver_sm(params, () => done(true));
    });
  }

  private describe(pdu: SmppPdu, id: string, session: number): SubmittedPart {
    const sm = pdu.short_message as { message?: string | Buffer; udh?: Buffer[] } | Buffer;
    const dataCoding = Number(pdu.data_coding ?? 0);
    let text = '';
    let concat: [number, number, number] | null = null;
    if (Buffer.isBuffer(sm)) {
      text = dataCoding === 8 ? decodeUcs2(sm) : decodeGsm7(sm);
    } else {
      const m = sm.message;
      text = Buffer.isBuffer(m) ? (dataCoding === 8 ? decodeUcs2(m) : decodeGsm7(m)) : (m ?? '');
      for (const ie of sm.udh ?? []) if (ie[0] === 0x00 && ie[1] === 3) concat = [ie[2], ie[3], ie[4]];
    }
    return {
      messageId: id,
      source: String(pdu.source_addr),
      destination: String(pdu.destination_addr),
      dataCoding,
      esmClass: Number(pdu.esm_class ?? 0),
      concat,
      text,
      at: Date.now(),
      session,
    };
  }
}
