// The platform's one clock (retry schedule, leases, the failing-for-days rule); kept here so the service's imports stay short.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
