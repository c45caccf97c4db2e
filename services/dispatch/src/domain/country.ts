/**
 * ISO 3166 alpha-2 of an E.164 number by its longest matching calling-code prefix. Streams normally sends iso2
 * with the message; this covers messages that arrive without it. NANP (+1) numbers are resolved to US unless the
 * area code is a Canadian one; other NANP countries fall under US routing, which is how carriers route them too.
 */
const PREFIXES: Record<string, string> = {
  '1': 'US', '7': 'RU', '20': 'EG', '27': 'ZA', '30': 'GR', '31': 'NL', '32': 'BE', '33': 'FR', '34': 'ES', '36': 'HU',
  '39': 'IT', '40': 'RO', '41': 'CH', '43': 'AT', '44': 'GB', '45': 'DK', '46': 'SE', '47': 'NO', '48': 'PL', '49': 'DE',
  '51': 'PE', '52': 'MX', '53': 'CU', '54': 'AR', '55': 'BR', '56': 'CL', '57': 'CO', '58': 'VE', '60': 'MY', '61': 'AU',
  '62': 'ID', '63': 'PH', '64': 'NZ', '65': 'SG', '66': 'TH', '81': 'JP', '82': 'KR', '84': 'VN', '86': 'CN', '90': 'TR',
  '91': 'IN', '92': 'PK', '93': 'AF', '94': 'LK', '95': 'MM', '98': 'IR', '211': 'SS', '212': 'MA', '213': 'DZ', '216': 'TN',
  '218': 'LY', '220': 'GM', '221': 'SN', '233': 'GH', '234': 'NG', '237': 'CM', '243': 'CD', '244': 'AO', '251': 'ET',
  '254': 'KE', '255': 'TZ', '256': 'UG', '260': 'ZM', '263': 'ZW', '351': 'PT', '352': 'LU', '353': 'IE', '354': 'IS',
  '355': 'AL', '356': 'MT', '357': 'CY', '358': 'FI', '359': 'BG', '370': 'LT', '371': 'LV', '372': 'EE', '373': 'MD',
  '374': 'AM', '375': 'BY', '376': 'AD', '377': 'MC', '380': 'UA', '381': 'RS', '382': 'ME', '385': 'HR', '386': 'SI',
  '387': 'BA', '389': 'MK', '420': 'CZ', '421': 'SK', '423': 'LI', '852': 'HK', '853': 'MO', '855': 'KH', '880': 'BD',
  '886': 'TW', '960': 'MV', '961': 'LB', '962': 'JO', '963': 'SY', '964': 'IQ', '965': 'KW', '966': 'SA', '967': 'YE',
  '968': 'OM', '970': 'PS', '971': 'AE', '972': 'IL', '973': 'BH', '974': 'QA', '976': 'MN', '977': 'NP', '992': 'TJ',
  '993': 'TM', '994': 'AZ', '995': 'GE', '996': 'KG', '998': 'UZ',
};
const CANADA = new Set(['204', '226', '236', '249', '250', '263', '289', '306', '343', '354', '365', '367', '368', '382', '403', '416', '418', '428', '431', '437', '438', '450', '468', '474', '506', '514', '519', '548', '579', '581', '584', '587', '604', '613', '639', '647', '672', '683', '705', '709', '742', '753', '778', '780', '782', '807', '819', '825', '867', '873', '879', '902', '905']);

export function iso2OfNumber(destination: string): string | null {
  const digits = destination.replace(/^\+/, '').replace(/\D/g, '');
  if (!digits) return null;
  if (digits[0] === '1') return CANADA.has(digits.slice(1, 4)) ? 'CA' : 'US';
  if (digits[0] === '7') return digits[1] === '6' || digits[1] === '7' ? 'KZ' : 'RU';
  for (let len = 3; len >= 1; len--) {
    const iso = PREFIXES[digits.slice(0, len)];
    if (iso) return iso;
  }
  return null;
}
