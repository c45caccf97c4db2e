/**
 * The SMS segment counter of the send-message popup counts exactly what the server prices and puts on the wire:
 * the pure, browser-safe encoder of libs/contracts (imported by file, since the package index pulls in server code).
 */
export { analyzeSms, type SmsAnalysis, type SmsEncodingName } from '@switchboard/contracts/src/sms/encoding';
