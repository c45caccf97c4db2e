import { encodeDeliverSmResp, encodeSubmitSm, PreparedSubmitSm, type SubmitSmFields } from './smpp-codec';
import { smpp } from './smpp-lib';
import { concatUdh, encodeSms } from '../sms';

/** The same PDU built by the smpp package, the reference encoder. */
function reference(sequence: number, f: SubmitSmFields): Buffer {
  const pdu = new smpp.PDU('submit_sm', {
    sequence_number: sequence,
    service_type: f.serviceType,
    source_addr_ton: f.sourceTon,
    source_addr_npi: f.sourceNpi,
    source_addr: f.source,
    dest_addr_ton: f.destTon,
    dest_addr_npi: f.destNpi,
    destination_addr: f.destination,
    registered_delivery: f.registeredDelivery,
    data_coding: f.dataCoding,
    esm_class: f.esmClass,
    short_message: Buffer.from(f.shortMessage),
  }) as unknown as { toBuffer(): Buffer };
  return pdu.toBuffer();
}

const base: SubmitSmFields = {
  serviceType: '',
  sourceTon: 5,
  sourceNpi: 0,
  source: 'ACME',
  destTon: 1,
  destNpi: 1,
  destination: '4915112345678',
  esmClass: 0,
  registeredDelivery: 1,
  dataCoding: 0,
  shortMessage: encodeSms('Your code is 123456', 'GSM7'),
};

describe('SMPP codec', () => {
  it.each([
    ['a GSM-7 text', base, 1],
    ['a UCS-2 text', { ...base, dataCoding: 8, shortMessage: encodeSms('Код: 1234 ✓', 'UCS2') }, 77],
    ['a concatenated part with UDH', { ...base, esmClass: 0x40, shortMessage: Buffer.concat([concatUdh(7, 3, 2), encodeSms('x'.repeat(153), 'GSM7')]) }, 0x7fffffff],
    ['a numeric sender and service type', { ...base, serviceType: 'CMT', sourceTon: 1, sourceNpi: 1, source: '15550001111' }, 42],
    ['an empty message without receipt', { ...base, registeredDelivery: 0, shortMessage: new Uint8Array(0) }, 3],
  ])('encodes submit_sm for %s byte for byte as the smpp package does', (_name, fields, seq) => {
    expect(encodeSubmitSm(seq, fields).equals(reference(seq, fields))).toBe(true);
  });

  it('decodes back, through the smpp package, to the fields it was given', () => {
    const pdu = new smpp.PDU(encodeSubmitSm(9, base) as unknown as string) as unknown as Record<string, unknown>;
    expect(pdu).toMatchObject({ command: 'submit_sm', sequence_number: 9, source_addr: 'ACME', destination_addr: '4915112345678', registered_delivery: 1, data_coding: 0 });
  });

  it('takes the sequence number the session assigns before encoding', () => {
    const prepared = new PreparedSubmitSm(base);
    prepared.sequence_number = 1234;
    expect(prepared.isResponse()).toBe(false);
    expect(prepared.toBuffer().readUInt32BE(12)).toBe(1234);
  });

  it('refuses a short_message over 254 octets rather than write a corrupt length', () => {
    expect(() => encodeSubmitSm(1, { ...base, shortMessage: new Uint8Array(255) })).toThrow(RangeError);
  });

  it('encodes deliver_sm_resp as the smpp package does', () => {
    const ref = (new smpp.PDU('deliver_sm', { sequence_number: 55 }) as unknown as { response(): { toBuffer(): Buffer } }).response().toBuffer();
    expect(encodeDeliverSmResp(55).equals(ref)).toBe(true);
  });
});
