/**
 * bench/campaign-ab.ts, the campaign bench's interleaved pairs (docs/decisions/0216): it reads campaign-send's output
 * as the bench prints it, compares two builds figure by figure, and its sign test says what 4 or 8 pairs can resolve.
 */
import { compare, formatComparison, median, parseCampaignSend, signTestP, type Run } from '../bench/campaign-ab';

// campaign-send's output (ROUNDS=2, STAGES=1), cut from a run of 2026-11-29 with the ceiling's stage block
const output = (node: number, pg: number, rate: number, dispatch: number) => `campaign-send: 20,000 recipients, driver memory, node flags '--max-semi-space-size=64', 2 x AMD EPYC, node v20.20.2, load 0.4 2.2 3.2
  ceiling, dispatch's own path (accepted events -> SMSC -> final, statuses consumed): 2,341 messages/s; CPU per message node 528 µs (main thread 269, the SMSC worker 62), PostgreSQL 202 µs
  ceiling, CPU µs per message by stage (STAGES=1: the async hook slows the process, read shares): node main thread 270
        68  dispatch: store, send, receipts
    PostgreSQL by session 202:
       111  switchboard-dispatch
  5 s: status 6, created 8000, SMSC 8000, delivered 6000
  campaign: 20,000 messages from start to delivered in 11.4 s: 1,757 messages/s end to end (first submit_sm after 1.6 s)
  CPU per message: node 560 µs (every module, the SMSC worker; main thread 336, the SMSC worker 57), PostgreSQL 421 µs: 1,020 messages per CPU-second; load average now 0.9 2.2 3.1
  campaign threads: main 336, SMSC 57
  SMSC received 20000 submit_sm; numbers sent more than once: 0
  campaign, CPU µs per message by stage (STAGES=1: the async hook slows the process, read shares): node main thread 337
        56  streams' send batches, campaigns' answers
        33  consumer: stats (stats.rollups)
    PostgreSQL by session 421:
       ${dispatch}  switchboard-dispatch
        55  switchboard-stats
  campaign 2: 20,000 messages from start to delivered in 9.9 s: ${rate.toLocaleString('en')} messages/s end to end (first submit_sm after 1.5 s)
  CPU per message: node ${node} µs (every module, the SMSC worker; main thread 280, the SMSC worker 56), PostgreSQL ${pg} µs: 1,182 messages per CPU-second; load average now 3.1 2.8 5.4
  SMSC received 20000 submit_sm; numbers sent more than once: 2
`;

describe('campaign-ab', () => {
  it('reads every round of campaign-send, the ceiling, the stages and the PostgreSQL sessions', () => {
    const run = parseCampaignSend(output(392, 454, 2027, 116));
    expect([...run.rounds.keys()]).toEqual(['ceiling', 'campaign', 'campaign 2']);
    expect(Object.fromEntries(run.rounds.get('campaign')!)).toEqual({
      'messages/s': 1757,
      'node µs': 560,
      'main thread µs': 336,
      'SMSC worker µs': 57,
      'PostgreSQL µs': 421,
      'node + PostgreSQL µs': 981,
      "stage: streams' send batches, campaigns' answers": 56,
      'stage: consumer: stats (stats.rollups)': 33,
      'pg session: switchboard-dispatch': 116,
      'pg session: switchboard-stats': 55,
    });
    expect(run.rounds.get('campaign 2')!.get('messages/s')).toBe(2027);
    expect(run.rounds.get('campaign 2')!.get('PostgreSQL µs')).toBe(454);
    // the stage block ended at the next round's line: nothing of round 1's block leaked into round 2
    expect(run.rounds.get('campaign 2')!.has('pg session: switchboard-dispatch')).toBe(false);
    expect(run.rounds.get('ceiling')!.get('PostgreSQL µs')).toBe(202);
    expect(run.rounds.get('ceiling')!.get('stage: dispatch: store, send, receipts')).toBe(68);
    expect(run.duplicates).toBe(2);
  });

  it('gives the exact two-sided sign test: four pairs can never reach 0.05, eight all one way can', () => {
    expect(signTestP(0, 4)).toBe(0.125);
    expect(signTestP(4, 4)).toBe(0.125);
    expect(signTestP(0, 8)).toBeCloseTo(2 / 256, 10);
    expect(signTestP(1, 8)).toBeCloseTo(18 / 256, 10);
    expect(signTestP(4, 8)).toBe(1);
    expect(signTestP(0, 0)).toBe(1);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('compares the pairs figure by figure: medians, the median difference and in how many pairs B was lower', () => {
    const pairs: Array<[Run, Run]> = [];
    const b = [400, 390, 380, 410, 395, 385, 405, 420];
    for (let i = 0; i < 8; i++) pairs.push([parseCampaignSend(output(450 + i, 430, 2000, 116)), parseCampaignSend(output(b[i], 430, 2000 + i, 100))]);
    const rows = compare(pairs);
    const node = rows.find((r) => r.round === 'campaign 2' && r.figure === 'node µs')!;
    expect(node).toMatchObject({ pairs: 8, medianA: 453.5, medianB: 397.5, lower: 8, higher: 0 });
    expect(node.medianDiff).toBe(median(b.map((x, i) => x - (450 + i))));
    expect(node.p).toBeCloseTo(2 / 256, 10);
    const pg = rows.find((r) => r.round === 'campaign 2' && r.figure === 'PostgreSQL µs')!;
    expect(pg).toMatchObject({ lower: 0, higher: 0, p: 1, medianDiff: 0 });
    const session = rows.find((r) => r.round === 'campaign' && r.figure === 'pg session: switchboard-dispatch')!;
    expect(session).toMatchObject({ medianA: 116, medianB: 100, lower: 8 });
    const text = formatComparison(rows);
    expect(text).toMatch(/campaign 2:\n/);
    expect(text).toMatch(/node µs +453\.5 +397\.5 +-55 +-12\.1 % +8\/8 +0\.008 \*/);
  });
});
