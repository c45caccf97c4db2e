// The platform's one clock (OTP expiry and cool-down, token buckets, duplicate and idempotency windows); kept here so the service's imports stay short.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
