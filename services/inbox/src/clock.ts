// The platform's one clock (the WhatsApp 24-hour reply window, timeline times); tests freeze it.
export { Clock, ManualClock, SystemClock } from '@switchboard/platform';
