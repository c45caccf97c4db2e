import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A replica's rate-share renewal in one statement (docs/decisions/0081-limits-across-three-replicas.md): the advisory
 * lock, the expired rows, every requested limit's grant and the given-up limits in one function call, one round trip.
 * The renewal took six round trips in one transaction under that lock (0047, 0061), so a replica whose event loop
 * stalled between two of them held every other replica's renewal behind it.
 *
 * The allocation is the one of `services/dispatch/src/domain/rate-shares.ts` (`wantOf`, `fairShares`, `shareFor`,
 * `shareSchedule`), which stays the reference: `rate-share-renew.int-spec.ts` checks the function against it.
 */
export class RateShareRenew1797100000000 implements MigrationInterface {
  name = 'RateShareRenew1797100000000';

  async up(q: QueryRunner): Promise<void> {
    // wantOf: all it can get when held back, nothing when it used nothing, else a quarter over its use and 2% of the rate
    await q.query(`
      CREATE FUNCTION dispatch.rate_share_want(rate float8, demand float8, saturated boolean) RETURNS float8
      LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN saturated THEN 'Infinity'::float8
                    WHEN NOT (demand > 0) THEN 0::float8
                    ELSE least(rate, demand * 1.25 + greatest(1, rate * 0.02)) END
      $$`);
    // shareFor: the first want's max-min fair share of the rate, at most what the others do not hold, to a hundredth
    await q.query(`
      CREATE FUNCTION dispatch.rate_share_for(rate float8, wants float8[], holdings float8[]) RETURNS float8
      LANGUAGE plpgsql IMMUTABLE AS $$
      DECLARE
        n int := array_length(wants, 1);
        left_over float8 := rate;
        k int := 0;
        w float8;
        pos bigint;
        give float8;
        mine float8 := 0;
        free float8 := rate;
      BEGIN
        FOR w, pos IN SELECT x, ord FROM unnest(wants) WITH ORDINALITY AS u(x, ord) ORDER BY x, ord LOOP
          give := least(w, left_over / (n - k));
          IF pos = 1 THEN mine := give; END IF;
          left_over := left_over - give;
          k := k + 1;
        END LOOP;
        IF left_over > 1e-9 THEN mine := mine + left_over / n; END IF;
        IF holdings IS NOT NULL THEN
          SELECT rate - coalesce(sum(h), 0) INTO free FROM unnest(holdings) AS h;
        END IF;
        RETURN greatest(0, floor(least(mine, free) * 100) / 100);
      END $$`);
    await q.query(`
      CREATE FUNCTION dispatch.renew_rate_shares(
        p_instance uuid, p_keys text[], p_rates float8[], p_demands float8[], p_saturated boolean[], p_pending float8[],
        p_drop text[], p_lease_ms float8, p_hold_ms float8, p_margin_ms float8)
      RETURNS TABLE (o_key text, o_share float8, o_later float8, o_later_ms float8)
      LANGUAGE plpgsql AS $$
      DECLARE
        i int;
        k text;
        r float8;
        mine_want float8;
        wants float8[];
        holdings float8[];
        after_lowering float8[];
        lowering_ms float8;
        now_share float8;
        later float8;
        row_share float8;
        own_share float8;
        own_holding float8;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('switchboard.dispatch.rate_share'));
        DELETE FROM dispatch.rate_share WHERE expires_at < now();
        FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
          k := p_keys[i];
          r := p_rates[i];
          mine_want := dispatch.rate_share_want(r, p_demands[i], p_saturated[i]);
          -- the other replicas' rows: their wants, what they hold now, and what they hold once their lowered share ends
          SELECT array[mine_want] || coalesce(array_agg(dispatch.rate_share_want(r, o.demand, o.saturated) ORDER BY o.instance_id), '{}'),
                 coalesce(array_agg(o.holding ORDER BY o.instance_id), '{}'),
                 coalesce(array_agg(CASE WHEN o.prior_ms > 0 THEN o.share ELSE o.holding END ORDER BY o.instance_id), '{}'),
                 max(o.prior_ms) FILTER (WHERE o.prior_ms > 0)
            INTO wants, holdings, after_lowering, lowering_ms
            FROM (SELECT s.instance_id, s.share, s.demand, s.saturated,
                         greatest(s.share, CASE WHEN s.prior_until > now() THEN s.prior_share ELSE 0 END) AS holding,
                         CASE WHEN s.prior_until > now() AND s.prior_share > s.share
                              THEN greatest(1, extract(epoch FROM s.prior_until - clock_timestamp()) * 1000) ELSE 0 END AS prior_ms
                    FROM dispatch.rate_share s WHERE s.key = k AND s.instance_id <> p_instance) o;
          now_share := dispatch.rate_share_for(r, wants, holdings);
          later := NULL;
          IF lowering_ms IS NOT NULL THEN
            later := dispatch.rate_share_for(r, wants, after_lowering);
            IF later <= now_share THEN later := NULL; END IF;
          END IF;
          -- the row holds the later share from now: every other replica counts it as held at once
          row_share := coalesce(later, now_share);
          SELECT s.share, greatest(s.share, CASE WHEN s.prior_until > now() THEN s.prior_share ELSE 0 END)
            INTO own_share, own_holding
            FROM dispatch.rate_share s WHERE s.key = k AND s.instance_id = p_instance;
          own_share := coalesce(own_share, 0);
          own_holding := coalesce(own_holding, 0);
          -- lowered below what it used until now: the old share counts until the messages booked under it went out
          INSERT INTO dispatch.rate_share AS s (key, instance_id, rate, share, prior_share, prior_until, demand, saturated, expires_at)
          VALUES (k, p_instance, r, row_share,
                  CASE WHEN row_share < own_share THEN own_holding ELSE 0 END,
                  CASE WHEN row_share < own_share THEN now() + least(p_hold_ms, greatest(0, p_pending[i]) + p_margin_ms) * interval '1 millisecond' END,
                  p_demands[i], p_saturated[i], now() + p_lease_ms * interval '1 millisecond')
          ON CONFLICT (key, instance_id) DO UPDATE SET
            rate = EXCLUDED.rate, share = EXCLUDED.share, demand = EXCLUDED.demand, saturated = EXCLUDED.saturated, expires_at = EXCLUDED.expires_at,
            prior_share = CASE WHEN EXCLUDED.prior_until IS NOT NULL THEN EXCLUDED.prior_share ELSE s.prior_share END,
            prior_until = coalesce(EXCLUDED.prior_until, s.prior_until);
          o_key := k;
          o_share := now_share;
          o_later := later;
          o_later_ms := CASE WHEN later IS NULL THEN NULL ELSE lowering_ms END;
          RETURN NEXT;
        END LOOP;
        IF coalesce(array_length(p_drop, 1), 0) > 0 THEN
          -- given up: held for the hold horizon (messages already booked still go out), then free
          UPDATE dispatch.rate_share
             SET prior_share = greatest(share, CASE WHEN prior_until > now() THEN prior_share ELSE 0 END), share = 0,
                 prior_until = now() + p_hold_ms * interval '1 millisecond', expires_at = now() + p_hold_ms * interval '1 millisecond'
           WHERE instance_id = p_instance AND key = ANY(p_drop);
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION dispatch.renew_rate_shares(uuid, text[], float8[], float8[], boolean[], float8[], text[], float8, float8, float8)`);
    await q.query(`DROP FUNCTION dispatch.rate_share_for(float8, float8[], float8[])`);
    await q.query(`DROP FUNCTION dispatch.rate_share_want(float8, float8, boolean)`);
  }
}
