import { AppError } from '@switchboard/platform';
import { parseTopics, topicPatterns } from './topics';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.status : -1;
  }
  return 0;
};

describe('realtime topics', () => {
  it('accepts allow-listed topics, deduplicated, and the caller\'s own account id', () => {
    expect(parseTopics(['campaigns', 'streams', 'campaigns', '10'], '10')).toEqual(['campaigns', 'streams']);
    expect(parseTopics('inbox', '10')).toEqual(['inbox']);
  });

  it('refuses unsafe, unknown or missing topics with 400 and another account with 403', () => {
    for (const bad of ['campaigns.5', '*', '>', 'camp aigns', 'rt', 'secrets', '']) expect([bad, refusal(() => parseTopics([bad], '10'))]).toEqual([bad, 400]);
    expect(refusal(() => parseTopics(undefined, '10'))).toBe(400);
    expect(refusal(() => parseTopics(['campaigns', '11'], '10'))).toBe(403);
  });

  it('maps a topic to the subject and everything under it, in the account', () => {
    expect(topicPatterns('10', 'campaigns')).toEqual(['rt.10.campaigns', 'rt.10.campaigns.>']);
  });
});
