import { describe, expect, it } from '@jest/globals';
import { campaignCtr } from './ctr';

const stats = (sent: number, clicked: number) => ({ sent, clicked }) as never;

describe('a campaign’s CTR level by its own indicators (spec 9)', () => {
  it('colours the same CTR differently for campaigns with different indicators', () => {
    // 2 clicks of 100 sent: mid by the defaults [1, 3], good for a campaign whose good is 2, bad for one whose bad is 5
    expect(campaignCtr({ stats: stats(100, 2), campaignSettings: {} as never })).toEqual({ ctr: 2, level: 'mid' });
    expect(campaignCtr({ stats: stats(100, 2), campaignSettings: { ctr_indicators: [0.5, 2] } as never })).toEqual({ ctr: 2, level: 'good' });
    expect(campaignCtr({ stats: stats(100, 2), campaignSettings: { ctr_indicators: [5, 10] } as never })).toEqual({ ctr: 2, level: 'bad' });
  });

  it('is bad at or below bad and good at or above good', () => {
    expect(campaignCtr({ stats: stats(100, 1), campaignSettings: { ctr_indicators: [1, 3] } as never }).level).toBe('bad');
    expect(campaignCtr({ stats: stats(100, 3), campaignSettings: { ctr_indicators: [1, 3] } as never }).level).toBe('good');
  });

  it('has no level before a message went out: a campaign just started is not "0 % · bad"', () => {
    expect(campaignCtr({ stats: stats(0, 0), campaignSettings: { ctr_indicators: [1, 3] } as never })).toEqual({ ctr: 0, level: 'none' });
    expect(campaignCtr({ stats: undefined as never, campaignSettings: {} as never }).level).toBe('none');
    // sent and not clicked: judged, bad
    expect(campaignCtr({ stats: stats(3, 0), campaignSettings: { ctr_indicators: [1, 3] } as never })).toEqual({ ctr: 0, level: 'bad' });
  });
});
