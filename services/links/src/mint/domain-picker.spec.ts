import { Distribution, DomainState, pickDomains, type DomainCandidate } from './domain-picker';

const domain = (id: string, o: Partial<DomainCandidate> = {}): DomainCandidate => ({ id, name: `d${id}.example`, state: DomainState.Configured, archived: false, messagesLimit: null, totalUsages: 0, ...o });
const names = (c: DomainCandidate[], a: Uint16Array) => Array.from(a, (i) => c[i].id);

describe('domain distribution', () => {
  it('spreads evenly: consecutive links on different domains, the least used domain catching up first', () => {
    const c = [domain('1'), domain('2'), domain('3')];
    expect(names(c, pickDomains(c, Distribution.SpreadEvenly, 7)!.assignment)).toEqual(['1', '2', '3', '1', '2', '3', '1']);
    const used = [domain('1', { totalUsages: 5 }), domain('2', { totalUsages: 2 }), domain('3', { totalUsages: 0 })];
    const pick = pickDomains(used, Distribution.SpreadEvenly, 11)!;
    expect(pick.added).toEqual([1, 4, 6]);
    expect(used.map((d, i) => d.totalUsages + pick.added[i])).toEqual([6, 6, 6]);
    expect(names(used, pick.assignment).slice(0, 2)).toEqual(['3', '3']);
  });

  it('fills one domain after another, one by one, each up to its messages limit', () => {
    const c = [domain('1', { messagesLimit: 10, totalUsages: 7 }), domain('2', { messagesLimit: 4 }), domain('3')];
    const pick = pickDomains(c, Distribution.OneByOne, 10)!;
    expect(names(c, pick.assignment)).toEqual(['1', '1', '1', '2', '2', '2', '2', '3', '3', '3']);
    expect(pick.reachedLimit).toEqual(['1', '2']);
  });

  it('skips domains that are not configured, archived, blocked or over their limit', () => {
    const c = [
      domain('1', { state: DomainState.Pending }),
      domain('2', { archived: true }),
      domain('3', { state: DomainState.Blocked }),
      domain('4', { messagesLimit: 5, totalUsages: 5 }),
      domain('5', { state: DomainState.Declined }),
      domain('6'),
    ];
    expect(new Set(names(c, pickDomains(c, Distribution.SpreadEvenly, 20)!.assignment))).toEqual(new Set(['6']));
    expect(new Set(names(c, pickDomains(c, Distribution.OneByOne, 20)!.assignment))).toEqual(new Set(['6']));
  });

  it('answers null (no valid domain) when the usable domains cannot take the whole batch, in either mode', () => {
    const c = [domain('1', { messagesLimit: 3 }), domain('2', { archived: true }), domain('3', { messagesLimit: 2, totalUsages: 1 })];
    expect(pickDomains(c, Distribution.SpreadEvenly, 5)).toBeNull();
    expect(pickDomains(c, Distribution.OneByOne, 5)).toBeNull();
    const spread = pickDomains(c, Distribution.SpreadEvenly, 4)!;
    expect(spread.added).toEqual([3, 0, 1]);
    expect(spread.reachedLimit).toEqual(['1', '3']);
    expect(pickDomains([], Distribution.OneByOne, 1)).toBeNull();
  });
});
