// The platform's one clock (PIN expiry, throttle windows, refresh expiry); kept here so the service's imports stay short.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
