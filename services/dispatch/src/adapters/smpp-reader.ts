/**
 * A reader for an SMPP client session of the `smpp` package that decodes the two PDUs dispatch receives per message
 * (submit_sm_resp, and deliver_sm carrying a plain receipt) by hand, and hands every other PDU to the package's own
 * decoder, unchanged. The package reads each PDU with two stream reads and a concatenation, then decodes it through
 * generic per-field readers and filters (the GSM coder for the text): ~20 µs of dispatch's main thread a message, the
 * largest item of dispatch's own SMPP path in the campaign bench's profile (docs/decisions/0197).
 *
 * The hand decoder takes a PDU only when its answer is provably the package's: every mandatory field present and
 * NUL-terminated inside the PDU, no scheduled or validity time, no UDH, data_coding 0 with a text of characters the
 * GSM 7-bit default alphabet and ASCII write alike, and only the receipt TLVs (receipted_message_id, message_state,
 * network_error_code). Anything else goes to the package. smpp-reader.spec.ts compares both over generated PDUs.
 */
import { smpp, type SmppPdu, type SmppSession } from './smpp-lib';

const SUBMIT_SM_RESP = 0x80000004;
const DELIVER_SM = 0x00000005;
const HEADER = 16;
const TLV_RECEIPTED_MESSAGE_ID = 0x001e;
const TLV_NETWORK_ERROR_CODE = 0x0423;
const TLV_MESSAGE_STATE = 0x0427;
const UDHI = 0x40;

/**
 * Octets whose GSM 03.38 default-alphabet character (what the package decodes data_coding 0 to) is the same as their
 * ASCII character: space, digits, letters and most punctuation; not 0x24 ($ is ¤ in GSM), 0x40 (@ is ¡), 0x5B-0x60,
 * 0x7B-0x7F, controls, escapes or anything above 0x7F.
 */
const SAME_AS_ASCII = new Uint8Array(256);
for (let b = 0x20; b <= 0x7a; b++) SAME_AS_ASCII[b] = 1;
for (const b of [0x24, 0x40, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60]) SAME_AS_ASCII[b] = 0;

/** What the package's PDU objects answer that dispatch and the session use. */
const pduMethods = {
  isResponse(this: { command_id: number }): boolean {
    return (this.command_id & 0x80000000) !== 0;
  },
  response(this: { command: string; sequence_number: number }, options: Record<string, unknown> = {}): SmppPdu {
    return new smpp.PDU(`${this.command}_resp`, { ...options, sequence_number: this.sequence_number });
  },
};

/** A submit_sm_resp as the package decodes it, or null to let the package decode it. */
function submitSmResp(frame: Buffer, length: number, status: number, sequence: number): SmppPdu | null {
  const pdu = Object.create(pduMethods) as Record<string, unknown>;
  pdu.command_length = length;
  pdu.command_id = SUBMIT_SM_RESP;
  pdu.command_status = status;
  pdu.sequence_number = sequence;
  pdu.command = 'submit_sm_resp';
  if (length > HEADER) {
    // an id without its NUL, or TLVs after it: the package's way
    if (cstringEnd(frame, HEADER, length) !== length - 1) return null;
    pdu.message_id = frame.toString('latin1', HEADER, length - 1);
  }
  return pdu as unknown as SmppPdu;
}

/** The end (NUL excluded) of an ASCII C-Octet String at `at`, or -1 when no NUL comes before `end` or an octet is not ASCII. */
function cstringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const b = buf[i];
    if (b === 0) return i;
    if (b > 0x7f) return -1;
  }
  return -1;
}

/** A deliver_sm as the package decodes it, or null to let the package decode it. */
function deliverSm(frame: Buffer, length: number, status: number, sequence: number): SmppPdu | null {
  if (status !== 0) return null;
  // service_type, source_addr_ton, source_addr_npi, source_addr
  const st = cstringEnd(frame, HEADER, length);
  if (st < 0 || st + 3 > length) return null;
  const sa = cstringEnd(frame, st + 3, length);
  // dest_addr_ton, dest_addr_npi, destination_addr
  if (sa < 0 || sa + 3 > length) return null;
  const da = cstringEnd(frame, sa + 3, length);
  // esm_class, protocol_id, priority_flag, schedule_delivery_time and validity_period (both empty: the package would
  // decode a time to a Date), registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id, sm_length
  let at = da + 1;
  if (da < 0 || at + 10 > length) return null;
  const esmClass = frame[at];
  const dataCoding = frame[at + 7];
  if (frame[at + 3] !== 0 || frame[at + 4] !== 0 || esmClass & UDHI || (dataCoding & 0x0f) !== 0) return null;
  const smLength = frame[at + 9];
  const sm = at + 10;
  if (sm + smLength > length) return null;
  for (let i = sm; i < sm + smLength; i++) if (!SAME_AS_ASCII[frame[i]]) return null;
  const pdu = Object.create(pduMethods) as Record<string, unknown>;
  pdu.command_length = length;
  pdu.command_id = DELIVER_SM;
  pdu.command_status = 0;
  pdu.sequence_number = sequence;
  pdu.command = 'deliver_sm';
  pdu.service_type = frame.toString('latin1', HEADER, st);
  pdu.source_addr_ton = frame[st + 1];
  pdu.source_addr_npi = frame[st + 2];
  pdu.source_addr = frame.toString('latin1', st + 3, sa);
  pdu.dest_addr_ton = frame[sa + 1];
  pdu.dest_addr_npi = frame[sa + 2];
  pdu.destination_addr = frame.toString('latin1', sa + 3, da);
  pdu.esm_class = esmClass;
  pdu.protocol_id = frame[at + 1];
  pdu.priority_flag = frame[at + 2];
  pdu.schedule_delivery_time = '';
  pdu.validity_period = '';
  pdu.registered_delivery = frame[at + 5];
  pdu.replace_if_present_flag = frame[at + 6];
  pdu.data_coding = dataCoding;
  pdu.sm_default_msg_id = frame[at + 8];
  pdu.short_message = { message: frame.toString('latin1', sm, sm + smLength) };
  at = sm + smLength;
  while (at + 4 <= length) {
    const tag = frame.readUInt16BE(at);
    const size = frame.readUInt16BE(at + 2);
    at += 4;
    if (at + size > length) return null;
    if (tag === TLV_RECEIPTED_MESSAGE_ID) {
      if (cstringEnd(frame, at, at + size) !== at + size - 1 || 'receipted_message_id' in pdu) return null;
      pdu.receipted_message_id = frame.toString('latin1', at, at + size - 1);
    } else if (tag === TLV_MESSAGE_STATE) {
      if (size !== 1 || 'message_state' in pdu) return null;
      pdu.message_state = frame[at];
    } else if (tag === TLV_NETWORK_ERROR_CODE) {
      if ('network_error_code' in pdu) return null;
      pdu.network_error_code = Buffer.from(frame.subarray(at, at + size));
    } else {
      return null;
    }
    at += size;
  }
  return at === length ? (pdu as unknown as SmppPdu) : null;
}

/** One PDU's frame (command_length included) decoded by hand where that is the package's answer, else by the package. */
export function decodePdu(frame: Buffer): SmppPdu {
  const length = frame.readUInt32BE(0);
  const id = frame.readUInt32BE(4);
  const status = frame.readUInt32BE(8);
  const sequence = frame.readUInt32BE(12);
  const fast = id === SUBMIT_SM_RESP ? submitSmResp(frame, length, status, sequence) : id === DELIVER_SM ? deliverSm(frame, length, status, sequence) : null;
  // the package keeps slices of the buffer it is given: a copy of its own, not a view of the socket's chunk
  return fast ?? new smpp.PDU(Buffer.from(frame) as unknown as string);
}

interface SessionInternals {
  paused: boolean;
  _busy: boolean;
  _callbacks: Record<number, (pdu: SmppPdu) => void>;
  _extractPDUs: () => void;
  socket: { read(size?: number): Buffer | null; destroy(e?: Error): void; removeAllListeners(event: string): unknown; on(event: string, fn: () => void): unknown };
}

/**
 * Replaces a freshly connected client session's reader with one that takes whatever the socket has, decodes every
 * whole PDU in it with `decodePdu`, and emits each exactly as the package does (`pdu`, then its command, then the
 * response callback of its sequence number), keeping the rest for the next read. Pause and resume behave as before. A
 * PDU longer than the package allows closes the connection (the stream cannot be resynchronised; the adapter
 * reconnects) instead of leaving the session deaf.
 */
export function installFastReader(session: SmppSession): void {
  const s = session as unknown as Omit<SessionInternals, 'socket'> & Omit<SmppSession, 'socket'> & Pick<SessionInternals, 'socket'>;
  const maxLength = (smpp.PDU as unknown as { maxLength: number }).maxLength;
  let pending: Buffer | null = null;
  const extract = (): void => {
    if (s._busy) return;
    s._busy = true;
    try {
      for (;;) {
        if (s.paused) return;
        if (!pending || pending.length < HEADER) {
          const chunk = s.socket.read();
          if (!chunk) return;
          pending = pending && pending.length ? Buffer.concat([pending, chunk]) : chunk;
          continue;
        }
        const length = pending.readUInt32BE(0);
        if (length > maxLength || length < HEADER) {
          s.emit('error', new Error(`PDU length was ${length < HEADER ? 'too small' : 'too large'} (${length}, maximum is ${maxLength}).`));
          pending = null;
          s.socket.destroy();
          return;
        }
        if (pending.length < length) {
          const chunk = s.socket.read();
          if (!chunk) return;
          pending = Buffer.concat([pending, chunk]);
          continue;
        }
        const frame = pending.subarray(0, length);
        pending = pending.length === length ? null : pending.subarray(length);
        let pdu: SmppPdu;
        try {
          pdu = decodePdu(frame);
        } catch (e) {
          s.emit('error', e);
          continue;
        }
        s.emit('pdu', pdu);
        s.emit(pdu.command, pdu);
        if (pdu.isResponse()) {
          const cb = s._callbacks[pdu.sequence_number];
          if (cb) {
            cb(pdu);
            delete s._callbacks[pdu.sequence_number];
          }
        }
      }
    } finally {
      s._busy = false;
    }
  };
  s.socket.removeAllListeners('readable');
  s.socket.on('readable', extract);
  s._extractPDUs = extract;
}
