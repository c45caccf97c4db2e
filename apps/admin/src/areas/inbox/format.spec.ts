import { describe, expect, it } from '@jest/globals';
import { totalText } from './format';

describe('a filter total as the tab shows it', () => {
  it('shows a total the server stopped counting (one past the cap) as `cap+`, and every other figure exactly', () => {
    expect([totalText(1001, 1000), totalText(1000, 1000), totalText(7, 1000), totalText(0, 1000), totalText(undefined, 1000)]).toEqual(['1000+', '1000', '7', '0', '']);
    // the whole space's totals come from counters: exact however far past the cap
    expect([totalText(1205, 1000), totalText(8, 2), totalText(3, 2)]).toEqual(['1205', '8', '2+']);
  });
});
