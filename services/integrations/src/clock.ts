// The platform's one clock (token expiry, retry-after, leases); kept here so the service's imports stay short.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
