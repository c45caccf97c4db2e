import * as net from 'node:net';
import { rngOf } from '@switchboard/contracts';
import { decodePdu, installFastReader } from './smpp-reader';
import { smpp, type SmppPdu } from './smpp-lib';

/** A PDU as plain data: its own fields, Buffers as arrays of octets (what a handler can read of it). */
function plain(pdu: SmppPdu): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(pdu)) {
    if (typeof v === 'function') continue;
    out[k] = Buffer.isBuffer(v) ? { buffer: [...v] } : v instanceof Date ? { date: String(v) } : v && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v;
  }
  return out;
}

/** The package's own decoding of a frame, the reference (or its error). */
function reference(frame: Buffer): Record<string, unknown> | { threw: string } {
  try {
    return plain(new smpp.PDU(Buffer.from(frame) as unknown as string));
  } catch (e) {
    return { threw: String(e) };
  }
}

function ours(frame: Buffer): Record<string, unknown> | { threw: string } {
  try {
    return plain(decodePdu(frame));
  } catch (e) {
    return { threw: String(e) };
  }
}

/** Decoded by hand rather than by the package. */
const tookFastPath = (frame: Buffer): boolean => !(decodePdu(frame) instanceof (smpp.PDU as unknown as new () => object));

/** A seeded generator (the one spintax uses), so a failure names a reproducible case. */
const rng = rngOf;

const RECEIPT = (id: string, stat: string) => `id:${id} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:2611281950 done date:2611281951 stat:${stat} err:000 text:Hello`;
const ODD = ['@', '$', '_', '{', '}', '[', '~', '\\', '^', '`', '|', 'é', 'ß', '€', '\n', '\r', '\x1b'];

function receiptFrame(r: () => number, sequence: number): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const id = Math.floor(r() * 1e12).toString(16);
  let text = RECEIPT(id, pick(['DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'ENROUTE']));
  if (r() < 0.2) text = text.slice(0, Math.floor(r() * text.length)) + pick(ODD) + text.slice(Math.floor(r() * text.length));
  const options: Record<string, unknown> = {
    sequence_number: sequence,
    service_type: r() < 0.8 ? '' : 'CMT',
    source_addr_ton: Math.floor(r() * 7),
    source_addr_npi: Math.floor(r() * 2),
    source_addr: r() < 0.9 ? `49151${Math.floor(r() * 1e8)}` : pick(['ACME', 'a@b', '']),
    dest_addr_ton: Math.floor(r() * 7),
    dest_addr_npi: 1,
    destination_addr: r() < 0.9 ? 'ACME' : pick(['', '4915112345678']),
    esm_class: pick([0x04, 0x04, 0x04, 0x20, 0x00, 0x44, 0x08]),
    data_coding: pick([0, 0, 0, 1, 3, 8]),
    short_message: r() < 0.9 ? Buffer.from(text, 'latin1') : Buffer.alloc(0),
  };
  if (r() < 0.1) options.schedule_delivery_time = '261128195000000+';
  if (r() < 0.8) options.receipted_message_id = id;
  if (r() < 0.7) options.message_state = pick([2, 5, 8]);
  if (r() < 0.3) options.network_error_code = Buffer.from([3, 0, Math.floor(r() * 256)]);
  if (r() < 0.1) options.user_message_reference = Math.floor(r() * 65536);
  if (r() < 0.05) options.message_payload = Buffer.from(text, 'latin1');
  return (new smpp.PDU('deliver_sm', options) as unknown as { toBuffer(): Buffer }).toBuffer();
}

function submitRespFrame(r: () => number, sequence: number): Buffer {
  const status = r() < 0.8 ? 0 : [0x58, 0x14, 0x0b, 0x45][Math.floor(r() * 4)];
  const options: Record<string, unknown> = { sequence_number: sequence, command_status: status };
  if (!status || r() < 0.5) options.message_id = r() < 0.9 ? Math.floor(r() * 1e12).toString(16) : '';
  const pdu = new smpp.PDU('submit_sm_resp', options) as unknown as { toBuffer(): Buffer; command_status: number };
  let frame = pdu.toBuffer();
  // the package writes no body for an error status; carriers often do: the id as given
  if (status && options.message_id !== undefined) {
    const body = Buffer.from(`${String(options.message_id)}\0`, 'latin1');
    frame = Buffer.concat([frame, body]);
    frame.writeUInt32BE(frame.length, 0);
  }
  return frame;
}

/** The frame damaged as a misbehaving peer would: a byte changed, cut short (length adjusted), or bytes appended. */
function damaged(r: () => number, frame: Buffer): Buffer {
  const f = Buffer.from(frame);
  const how = r();
  if (how < 0.4) {
    f[16 + Math.floor(r() * Math.max(1, f.length - 16))] = Math.floor(r() * 256);
    return f;
  }
  if (how < 0.7) {
    const cut = f.subarray(0, 16 + Math.floor(r() * (f.length - 16)));
    cut.writeUInt32BE(cut.length, 0);
    return Buffer.from(cut);
  }
  const extra = Buffer.concat([f, Buffer.from([...Array(1 + Math.floor(r() * 6))].map(() => Math.floor(r() * 256)))]);
  extra.writeUInt32BE(extra.length, 0);
  return extra;
}

describe('SMPP reader: submit_sm_resp and receipts decoded by hand', () => {
  it('decodes every generated receipt and submit response exactly as the smpp package does, and most by hand', () => {
    const r = rng(20261128);
    let fast = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const frame = i % 2 ? receiptFrame(r, i + 1) : submitRespFrame(r, i + 1);
      expect({ i, pdu: ours(frame) }).toEqual({ i, pdu: reference(frame) });
      if (tookFastPath(frame)) fast++;
    }
    // the plain receipts and responses are the common case: most must avoid the package
    expect(fast).toBeGreaterThan(n * 0.5);
  });

  it('agrees with the package on damaged frames too (changed bytes, cut short, trailing bytes)', () => {
    const r = rng(7);
    for (let i = 0; i < 6000; i++) {
      const frame = damaged(r, i % 2 ? receiptFrame(r, i + 1) : submitRespFrame(r, i + 1));
      expect({ i, frame: frame.toString('hex'), pdu: ours(frame) }).toEqual({ i, frame: frame.toString('hex'), pdu: reference(frame) });
    }
  });

  it('leaves every character GSM and ASCII write differently to the package', () => {
    for (let b = 0; b < 256; b++) {
      const frame = (new smpp.PDU('deliver_sm', { sequence_number: 1, source_addr: '1', destination_addr: '2', esm_class: 4, data_coding: 0, short_message: Buffer.from([0x41, b, 0x42]) }) as unknown as { toBuffer(): Buffer }).toBuffer();
      expect({ b, pdu: ours(frame) }).toEqual({ b, pdu: reference(frame) });
    }
  });
});

describe('SMPP reader on a session', () => {
  /** A client session of the package with the fast reader, against a peer that writes `bytes` in random-sized chunks. */
  async function receive(bytes: Buffer, chunking: (left: number) => number): Promise<{ pdus: SmppPdu[]; responses: number[]; errors: string[]; closed: boolean }> {
    const server = net.createServer((socket) => {
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return;
        const n = Math.min(bytes.length - at, chunking(bytes.length - at));
        socket.write(bytes.subarray(at, at + n));
        at += n;
        setImmediate(next);
      };
      next();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const session = smpp.connect({ url: `smpp://127.0.0.1:${port}` });
    installFastReader(session);
    const pdus: SmppPdu[] = [];
    const responses: number[] = [];
    const errors: string[] = [];
    let closed = false;
    session.on('pdu', (p: SmppPdu) => pdus.push(p));
    session.on('error', (e: Error) => errors.push(e.message));
    session.on('close', () => (closed = true));
    // responses to sequence numbers 2, 4, 6: what Session.send registers for a submit_sm
    const callbacks = (session as unknown as { _callbacks: Record<number, (p: SmppPdu) => void> })._callbacks;
    for (const seq of [2, 4, 6]) callbacks[seq] = (p) => responses.push(p.sequence_number);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !closed && pdus.length < 6) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    session.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return { pdus, responses, errors, closed };
  }

  const r = rng(11);
  const frames = [receiptFrame(r, 1), submitRespFrame(r, 2), (new smpp.PDU('enquire_link', { sequence_number: 3 }) as unknown as { toBuffer(): Buffer }).toBuffer(), submitRespFrame(r, 4), receiptFrame(r, 5), submitRespFrame(r, 6)];
  const stream = Buffer.concat(frames);

  it.each([
    ['one byte at a time', () => 1],
    ['in 7-byte pieces (headers split)', () => 7],
    ['all at once', (left: number) => left],
  ])('emits each PDU once, in order, with its response callback, when the peer writes %s', async (_name, chunking) => {
    const got = await receive(stream, chunking);
    expect(got.errors).toEqual([]);
    expect(got.pdus.map((p) => [p.command, p.sequence_number])).toEqual(frames.map((f) => [(reference(f) as Record<string, unknown>).command, f.readUInt32BE(12)]));
    expect(got.pdus.map(plain)).toEqual(frames.map(reference));
    expect(got.responses).toEqual([2, 4, 6]);
  });

  it('closes the connection on a PDU longer than the package allows, after what came before it', async () => {
    const huge = Buffer.alloc(16);
    huge.writeUInt32BE(1_000_000, 0);
    huge.writeUInt32BE(0x00000005, 4);
    const got = await receive(Buffer.concat([frames[0], huge, frames[1]]), (left) => left);
    expect(got.pdus.map((p) => p.sequence_number)).toEqual([1]);
    expect(got.errors.join()).toMatch(/too large \(1000000/);
    expect(got.closed).toBe(true);
  });
});
