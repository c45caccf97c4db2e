import { inboundAddress, isReceivingNumber, keywordOf } from './inbound-events';

describe('inbound addresses', () => {
  it('spells one number one way, with or without +, 00, separators or its national form in its country', () => {
    for (const raw of ['+4915112345678', '4915112345678', '004915112345678', '+49 151 1234-5678', '(+49) 151 12345678']) expect(inboundAddress('sms', raw)).toBe('+4915112345678');
    expect(inboundAddress('sms', '015112345678', 'DE')).toBe('+4915112345678');
    expect(inboundAddress('sms', '015112345678', 'de')).toBe('+4915112345678');
    expect(inboundAddress('sms', '89161234567', 'RU')).toBe('+79161234567');
    expect(inboundAddress('sms', '4155550100', 'US')).toBe('+14155550100');
  });

  it('reads digits that start with the country code as international even when a country is given', () => {
    expect(inboundAddress('sms', '4915112345678', 'DE')).toBe('+4915112345678');
    expect(inboundAddress('sms', '14155550100', 'US')).toBe('+14155550100');
  });

  it('keeps short codes and numbers it cannot read as digits, alphanumeric senders lower-cased; WhatsApp and Telegram ids as given', () => {
    expect(inboundAddress('sms', '12345')).toBe('12345');
    expect(inboundAddress('sms', '015112345678')).toBe('015112345678');
    expect(inboundAddress('sms', 'Acme')).toBe('acme');
    expect(inboundAddress('whatsapp', ' 2222222222 ')).toBe('2222222222');
    expect(inboundAddress('telegram', '123456')).toBe('123456');
    expect(inboundAddress('sms', '  ')).toBeNull();
    expect(inboundAddress('sms', null)).toBeNull();
  });

  it('claims numbers and short codes, never alphanumeric senders', () => {
    expect(isReceivingNumber('+4915112345678')).toBe(true);
    expect(isReceivingNumber('12345')).toBe(true);
    expect(isReceivingNumber('Acme')).toBe(false);
    expect(isReceivingNumber('ACME24')).toBe(false);
  });
});

describe('reply keywords', () => {
  it('reads a whole message as a keyword: case, surrounding spaces and punctuation ignored, any script', () => {
    expect(keywordOf('  stop ')).toBe('STOP');
    expect(keywordOf('Stop!')).toBe('STOP');
    expect(keywordOf('/stop')).toBe('STOP');
    expect(keywordOf('стоп.')).toBe('СТОП');
    expect(keywordOf('Отписаться')).toBe('ОТПИСАТЬСЯ');
    expect(keywordOf('please stop sending')).toBe('PLEASE STOP SENDING');
    expect(keywordOf('')).toBe('');
  });
});
