/** The slice of the untyped `smpp` package (0.5.x) that dispatch and its test peer use. */
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import type { Server as NetServer } from 'node:net';

export interface SmppPdu {
  command: string;
  command_status: number;
  sequence_number: number;
  [field: string]: unknown;
  isResponse(): boolean;
  response(options?: Record<string, unknown>): SmppPdu;
}

export interface SmppSession extends EventEmitter {
  send(pdu: SmppPdu, onResponse?: (pdu: SmppPdu) => void, onSent?: (pdu: SmppPdu) => void): boolean;
  close(cb?: () => void): void;
  destroy(cb?: () => void): void;
  pause(): void;
  resume(): void;
  socket: { writable: boolean; remoteAddress?: string; setNoDelay?(v: boolean): void; cork?(): void; uncork?(): void };
  bind_transceiver(options: Record<string, unknown>, cb: (pdu: SmppPdu) => void): boolean;
  submit_sm(options: Record<string, unknown>, cb: (pdu: SmppPdu) => void): boolean;
  deliver_sm(options: Record<string, unknown>, cb?: (pdu: SmppPdu) => void): boolean;
  enquire_link(options?: Record<string, unknown>, cb?: (pdu: SmppPdu) => void): boolean;
  unbind(options?: Record<string, unknown>, cb?: (pdu: SmppPdu) => void): boolean;
}

export interface SmppServer extends NetServer {
  sessions: SmppSession[];
}

export interface SmppModule {
  connect(options: { url: string; auto_enquire_link_period?: number; connectTimeout?: number }): SmppSession;
  createServer(listener: (session: SmppSession) => void): SmppServer;
  PDU: new (command: string, options?: Record<string, unknown>) => SmppPdu;
  ESME_ROK: number;
  ESME_RTHROTTLED: number;
  ESME_RMSGQFUL: number;
  ESME_RSYSERR: number;
  ESME_RBINDFAIL: number;
  ESME_RINVDSTADR: number;
}

const load = createRequire(__filename);
export const smpp = load('smpp') as SmppModule;

/**
 * The package's GSM coder rebuilds `Object.keys` of its 128-entry table on every call to find out whether the table
 * is built (smpp 0.5 lib/defs.js `gsmCoder.getCoder`), and every received deliver_sm is decoded through it: 2% of
 * dispatch's CPU at 10,000 receipts/s. The coder for an encoding is the same object once built, so it is kept.
 */
const gsm = (load('smpp/lib/defs') as { gsmCoder?: { getCoder?: (encoding?: number) => unknown } }).gsmCoder;
if (gsm?.getCoder && !(gsm.getCoder as { memoised?: boolean }).memoised) {
  const original = gsm.getCoder;
  const built = new Map<number | undefined, unknown>();
  const memoised = function (this: unknown, encoding?: number): unknown {
    let coder = built.get(encoding);
    if (coder === undefined) {
      coder = original.call(this, encoding);
      built.set(encoding, coder);
    }
    return coder;
  };
  gsm.getCoder = Object.assign(memoised, { memoised: true });
}

/** SMPP command_status values dispatch treats specially (SMPP 3.4 5.1.3). */
export const SmppStatus = {
  OK: 0x00,
  SYSERR: 0x08,
  MSGQFUL: 0x14,
  THROTTLED: 0x58,
  BINDFAIL: 0x0d,
  INVDSTADR: 0x0b,
  SUBMITFAIL: 0x45,
} as const;

export const EsmClass = { UDHI: 0x40, RECEIPT: 0x04, RECEIPT_MASK: 0x3c } as const;
