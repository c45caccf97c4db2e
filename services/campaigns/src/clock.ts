// The platform's one clock (schedules, status times); kept here so the service's imports stay short.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
