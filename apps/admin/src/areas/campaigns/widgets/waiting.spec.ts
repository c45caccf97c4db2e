import { describe, expect, it } from '@jest/globals';
import type { ActivityTime } from '../types';
import { waitingFor } from './waiting';

const activity = (timezone_mode: 'recipient' | 'local' | 'selected', timezone: string | null): ActivityTime => ({
  working_hours: { start: '09:00', end: '20:00' },
  working_days: [1, 2, 3, 4, 5],
  timezone,
  timezone_mode,
  dates: { start: null, end: null, scheduled: null },
});

describe('waiting for sending hours', () => {
  it("shows the next opening in the campaign's chosen zone", () => {
    // Monday 30 Nov 2026 09:00 in New York
    expect(waitingFor({ waitingUntil: '2026-11-30T14:00:00.000Z', activityTime: activity('selected', 'America/New_York') }, 'en-GB')).toEqual({ at: 'Mon 30 Nov, 09:00', zone: 'America/New_York', recipient: false });
    expect(waitingFor({ waitingUntil: '2026-11-30T14:00:00.000Z', activityTime: activity('local', 'America/New_York') }, 'ru-RU')?.at).toMatch(/30 нояб.*09:00/);
  });

  it("shows the recipient's mode in the next recipient's own zone, else on the viewer's clock", () => {
    expect(waitingFor({ waitingUntil: '2026-11-30T14:00:00.000Z', waitingZone: 'America/New_York', activityTime: activity('recipient', null) }, 'en-GB')).toEqual({ at: 'Mon 30 Nov, 09:00', zone: 'America/New_York', recipient: true });
    expect(waitingFor({ waitingUntil: '2026-11-30T14:00:00.000Z', activityTime: activity('recipient', null) }, 'en-GB')).toMatchObject({ zone: null, recipient: false });
  });

  it('shows nothing when nothing waits for the hours', () => {
    expect(waitingFor({ waitingUntil: null, activityTime: activity('selected', 'UTC') }, 'en-GB')).toBeNull();
    expect(waitingFor({ activityTime: activity('selected', 'UTC') }, 'en-GB')).toBeNull();
  });
});
