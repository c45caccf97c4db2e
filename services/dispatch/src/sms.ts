// The shared SMS code (libs/contracts/src/sms), one import site for dispatch.
export {
  analyzeSms,
  concatUdh,
  decodeGsm7,
  decodeUcs2,
  encodeGsm7,
  encodeSms,
  encodeUcs2,
  isGsm7,
  parseConcatUdh,
  smppDataCoding,
  splitSms,
  type SmsEncodingName,
} from '@switchboard/contracts';
