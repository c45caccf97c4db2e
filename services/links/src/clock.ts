// The platform's one clock (offer expiry, DNS re-check schedule); kept here so the service's imports stay short.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
