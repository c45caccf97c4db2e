import { describe, expect, it } from '@jest/globals';
import { check, eventKey, flagNumber, intRange, ipList, otpMessage, phone, senderId, telegramChat } from './rules';
import { missingPlaceholders, templatePayload } from './send/whatsapp-template';
import { analyzeSms } from './sms';
import { fieldOf, initialValues, toInput, validateStream } from './streams/stream-form';
import type { Stream } from './types';
import { pageItems, pageSizeOptions } from '../../ui/table/pagination';

describe('sender ID rules (spec 5)', () => {
  it('accepts alphanumeric IDs of 3 to 11 characters and numeric ones up to 15 digits', () => {
    expect(senderId('ACM')).toBeUndefined();
    expect(senderId('Acme Ltd.')).toBeUndefined();
    expect(senderId('AcmeMessage')).toBeUndefined();
    expect(senderId('491511234567890')).toBeUndefined();
    expect(senderId('+491511234567890')).toBeUndefined();
  });

  it('names the broken rule: alphaMin, alphaMax, numericMax, forbidden characters, required', () => {
    expect(senderId('AB')).toBe('errors.client.alphaMin');
    expect(senderId('12')).toBe('errors.client.alphaMin');
    expect(senderId('AcmeMessages')).toBe('errors.client.alphaMax');
    expect(senderId('4915112345678901')).toBe('errors.client.numericMax');
    expect(senderId('Acme#1')).toBe('errors.client.xss');
    expect(senderId('   ')).toBe('errors.client.required');
  });
});

describe('IP lists (spec 5: errors.client.ips)', () => {
  it('accepts IPv4 with an optional mask and IPv6 in its usual forms', () => {
    expect(ipList('203.0.113.10, 10.0.0.0/8 2001:db8::/32\n::1, ::ffff:10.0.0.1, 1:2:3:4:5:6:7:8')).toBeUndefined();
    expect(ipList('')).toBeUndefined();
  });

  it('refuses out-of-range octets, masks and malformed IPv6', () => {
    for (const bad of ['10.0.0.300', '10.0.0.0/33', '10.0.0', '2001:db8:::1', '1:2:3:4:5:6:7:8:9', 'localhost', '2001:db8::/129']) {
      expect(ipList(bad)).toBe('errors.client.ips');
    }
  });
});

describe('send-message fields', () => {
  it('takes plausible phones with or without a plus, and Telegram chat ids or usernames', () => {
    expect(phone('+49 151 12345678')).toBeUndefined();
    expect(phone('4915112345678')).toBeUndefined();
    expect(phone('12')).toBe('errors.client.impossiblePhoneNumber');
    expect(phone('')).toBe('errors.client.required');
    expect(telegramChat('@acme_support')).toBeUndefined();
    expect(telegramChat('-1001234567890')).toBeUndefined();
    expect(telegramChat('not a chat')).toBe('errors.client.invalidPhone');
  });

  it('reads a number for its flag as spec 2 says: * or # cut from the first 00, 00 becomes +, short numbers get none', () => {
    expect(flagNumber('*31#0049151123')).toBe('+49151123');
    expect(flagNumber('004915112345678')).toBe('+4915112345678');
    expect(flagNumber('4915112345678')).toBe('+4915112345678');
    expect(flagNumber('12345')).toBeNull();
  });

  it('counts UCS-2 parts with the shared encoder: 70 units fit one SMS, 71 need two of 67', () => {
    const seventy = 'Весенняя распродажа в Acme: скидки до 50% на всё! Ждём вас в магазине.';
    expect(analyzeSms(seventy)).toMatchObject({ encoding: 'UCS2', units: 70, segments: 1 });
    expect(analyzeSms(`${seventy}!`)).toMatchObject({ encoding: 'UCS2', segments: 2, remaining: 63 });
    expect(analyzeSms('Hello {there}')).toMatchObject({ encoding: 'GSM7', units: 15 });
  });
});

describe('other rules', () => {
  it('checks OTP messages for the code placeholder, key names and integer ranges', () => {
    expect(otpMessage('Your code is {{code}}')).toBeUndefined();
    expect(otpMessage('Your code')).toBe('errors.client.otpPlaceholder');
    expect(eventKey('order_shipped-1')).toBeUndefined();
    expect(eventKey('order shipped')).toBe('errors.client.invalidKey');
    expect(check('29', intRange(30, 86_400))).toBe('errors.client.minNumber');
    expect(check('86401', intRange(30, 86_400))).toBe('errors.client.maxNumber');
    expect(check('1e3', intRange(30, 86_400))).toBe('errors.client.digits');
  });
});

describe('the stream form', () => {
  it('starts an OTP stream with the spec 9 defaults and sends them as params', () => {
    const v = { ...initialValues(3), name: 'Codes', sender: 'AcmeSMS' };
    expect(v).toMatchObject({ code_generator: 2, code_length: 5, ttl: '300', max_attempts: '10', max_attempts_ip: '10', max_failures: '10', cool_down_time: 1800 });
    expect(validateStream(v, false)).toEqual({});
    expect(toInput(v)).toEqual({
      name: 'Codes',
      description: '',
      ipAcl: [],
      enableSending: true,
      isDefault: false,
      sender: 'AcmeSMS',
      streamType: 3,
      params: { check_ip_acl: 1, code_generator: 2, code_length: 5, ttl: 300, max_attempts: 10, max_attempts_ip: 10, max_failures: 10, cool_down_time: 1800, otp_message: 'Your verification code is {{code}}' },
    });
  });

  it('needs the business id, phone number id and token of a new WhatsApp stream, but keeps a saved token on edit', () => {
    const v = { ...initialValues(5), name: 'WA' };
    expect(Object.keys(validateStream(v, false)).sort()).toEqual(['auth_token', 'business_id', 'phone_number']);
    expect(Object.keys(validateStream({ ...v, business_id: '123456', phone_number: '109876543210' }, true))).toEqual([]);
    const saved: Stream = {
      id: 7, name: 'WA', description: '', staticServiceType: null, status: 0, streamType: 5, ipAcl: [], lastSentTime: null, sender: null, streamTags: [],
      enableSending: true, isDefault: false, streamUid: 'u', params: { auth_token: 'EAAG****abcd' }, createdAt: '', updatedAt: '',
    };
    const edit = toInput({ ...v, business_id: '123456', phone_number: '109876543210' }, saved);
    expect(edit.params).not.toHaveProperty('auth_token');
    expect(edit).not.toHaveProperty('streamType');
  });

  it('edits the stream TPS in its advanced params: a whole number from 1 to 100 000, sent only when set, removed when emptied', () => {
    const v = { ...initialValues(2), name: 'Alerts' };
    expect(v.tps).toBe('');
    expect(toInput(v).params).not.toHaveProperty('tps');
    for (const bad of ['0', '-5', '1.5', '12a', '100001']) expect(validateStream({ ...v, tps: bad }, false).tps).toBeDefined();
    expect(validateStream({ ...v, tps: '100000' }, false)).toEqual({});
    expect(toInput({ ...v, tps: ' 250 ' }).params?.tps).toBe(250);
    const saved: Stream = {
      id: 8, name: 'Alerts', description: '', staticServiceType: null, status: 0, streamType: 2, ipAcl: [], lastSentTime: null, sender: null, streamTags: [],
      enableSending: true, isDefault: false, streamUid: 'u', params: { check_ip_acl: 1, tps: 250 }, createdAt: '', updatedAt: '',
    };
    const editing = initialValues(2, saved);
    expect(editing.tps).toBe('250');
    expect(toInput(editing, saved).params?.tps).toBe(250);
    // an update leaves absent params as they are, so an emptied field sends null to remove the rate
    expect(toInput({ ...editing, tps: '' }, saved).params?.tps).toBeNull();
    expect(fieldOf('params.tps')).toBe('tps');
  });

  it('maps server violations onto fields', () => {
    expect(fieldOf('params.ttl')).toBe('ttl');
    expect(fieldOf('ipAcl[3]')).toBe('ipAcl');
    expect(fieldOf('params.otp_code')).toBe('auth_token');
    expect(fieldOf('somethingElse')).toBe('_');
  });
});

describe('WhatsApp templates', () => {
  const template = {
    name: 'order_shipped',
    language: 'en_US',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
      { type: 'BODY', text: 'Hi {{1}}, order {{2}} ships {{1}}' },
      { type: 'FOOTER', text: 'Acme' },
    ],
  };

  it('builds the Cloud API template with the parameters of each section, once per placeholder', () => {
    expect(templatePayload(template, { 'HEADER.1': 'A-1', 'BODY.1': 'Anna', 'BODY.2': 'A-1' })).toEqual({
      template: {
        name: 'order_shipped',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'A-1' }] },
          { type: 'body', parameters: [{ type: 'text', text: 'Anna' }, { type: 'text', text: 'A-1' }] },
        ],
      },
    });
  });

  it('reports unfilled placeholders', () => {
    expect(missingPlaceholders(template, { 'HEADER.1': 'A-1', 'BODY.1': 'Anna' })).toBe(true);
    expect(missingPlaceholders(template, { 'HEADER.1': 'A-1', 'BODY.1': 'Anna', 'BODY.2': 'x' })).toBe(false);
  });
});

describe('table footer (spec 2, 9)', () => {
  it('shows 4 pages in range and 1 margin page with gaps', () => {
    expect(pageItems(1, 3)).toEqual([1, 2, 3]);
    expect(pageItems(10, 20)).toEqual([1, 'gap-start', 9, 10, 11, 12, 'gap-end', 20]);
  });

  it('offers 10, 25, 50, 100 and adds the current size if missing', () => {
    expect(pageSizeOptions(25)).toEqual([10, 25, 50, 100]);
    expect(pageSizeOptions(500)).toEqual([10, 25, 50, 100, 500]);
  });
});
