import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `accept_messages_compact` (issue 12; docs/decisions/0210): `accept_messages` of 1798600000167 for a batch whose events
 * node writes itself, compactly. A campaign batch's packed outbox row was ~1.1 KB a send: both events' JSON with every
 * envelope and data field repeated per send, built here from the batch's JSON (parsed field by field, the accepted
 * event's middle escaped twice) by a string_agg of 14 pieces a send, then written to TOAST and read back by the relay.
 *
 * - `p_events` is node's JSON of the batch's events, taken as text and never parsed here: the head groups (stream,
 *   account, time, trace) once, and per send its two event ids, its uuid and its accepted event's middle.
 * - The packed row is `{"e":<p_events>,"i":[...],"a":[...],"b":[...],"c":[...]}`: per accepted send, in batch order, its
 *   position, price, the account's balance after it and the currency. Streams' relay builds the same events as
 *   1798600000167's packed text from it (the `$streams.sends.compact` row type).
 * - The sends' rows carry no `h`, `aid`, `cid`, `v`, `accepted` or `charged`: the batch's JSON is what the decisions and
 *   the message rows need, nothing more.
 * Decisions, refusals, codes, order and writes are those of 1798600000167's function, statement for statement; only the
 * events' text differs. The previous functions are left as they are (the stream API's sends that cannot be written
 * compactly, and a send path of the previous release side by side). `down` drops the new function.
 */
export class AcceptMessagesCompact1798800000210 implements MigrationInterface {
  name = 'AcceptMessagesCompact1798800000210';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION streams.accept_messages_compact(
        p_batch json, p_events text, p_now timestamptz, p_day date, p_slots integer, p_default_price bigint,
        p_dedupe_until timestamptz, p_idem_ttl_seconds integer, p_outbox_sql text
      ) RETURNS TABLE (ord integer, result text, amount_micros bigint, currency text)
      LANGUAGE plpgsql AS $fn$
      #variable_conflict use_column
      DECLARE
        v_rows streams.send_row[];
        v_n integer;
        v_i integer;
        v_a integer;
        -- per send, by i
        v_state text[];
        v_amount bigint[];
        v_currency text[];
        v_ok boolean[];
        v_acc_of integer[];
        v_has_fp boolean[];
        v_has_key boolean[];
        v_fp_ok boolean[];
        v_key_ok boolean[];
        v_run bigint[];
        -- per account, by position in v_acc
        v_acc bigint[];
        v_row_limit integer[];
        v_na integer;
        v_limit integer[];
        v_used bigint[];
        v_need bigint[];
        v_avail bigint[];
        v_slot smallint[];
        v_pooled boolean[];
        v_slots_of integer[];
        v_spent bigint[];
        v_count integer[];
        v_balance bigint[];
        v_cur text[];
        v_s smallint;
        v_b bigint;
        v_tot bigint;
        v_cnt integer;
        v_any_limit boolean := false;
        v_release_fp boolean := false;
        v_release_key boolean := false;
        v_events integer;
        v_packed text;
      BEGIN
        -- 1. the batch, and the customer and price of every send, and its account's position in v_acc (account ids
        -- in order)
        SELECT array_agg(r.x ORDER BY r.i),
               array_agg(CASE WHEN c.account_id IS NULL THEN 'no_customer' WHEN p.price IS NULL THEN 'no_price' END ORDER BY r.i),
               array_agg(coalesce(p.price, 0) * r.segments ORDER BY r.i),
               array_agg(c.currency ORDER BY r.i),
               array_agg(r.k ORDER BY r.i),
               array_agg(r.fp ORDER BY r.i),
               array_agg(r.idem ORDER BY r.i),
               array_agg(DISTINCT r.account_id),
               array_agg(c.daily_limit ORDER BY r.i)
          INTO v_rows, v_state, v_amount, v_currency, v_acc_of, v_has_fp, v_has_key, v_acc, v_row_limit
          FROM (SELECT x, x.i, x.account_id, x.iso2, x.segments, x.price_override, x.fp IS NOT NULL AS fp, x.idem_key IS NOT NULL AS idem,
                       dense_rank() OVER (ORDER BY x.account_id)::integer AS k
                  FROM json_populate_recordset(NULL::streams.send_row, p_batch) x) r
          LEFT JOIN streams.customer c ON c.account_id = r.account_id
          LEFT JOIN LATERAL (
            -- the account's own price, else the global one (account 0 in the key); both through price_key
            SELECT coalesce(r.price_override,
                            (SELECT pr.price_micros FROM streams.price pr
                              WHERE coalesce(pr.account_id, 0) IN (r.account_id, 0) AND pr.iso2 = r.iso2 AND pr.currency = c.currency
                              ORDER BY coalesce(pr.account_id, 0) DESC LIMIT 1),
                            p_default_price) AS price
          ) p ON c.account_id IS NOT NULL;
        v_n := coalesce(array_length(v_rows, 1), 0);
        IF v_n = 0 THEN
          RETURN;
        END IF;
        IF v_rows[1].i <> 1 OR v_rows[v_n].i <> v_n THEN
          RAISE EXCEPTION 'accept_messages: sends must be numbered 1 to %', v_n;
        END IF;
        v_na := array_length(v_acc, 1);

        -- the daily usage of the accounts that have a limit
        v_limit := array_fill(NULL::integer, ARRAY[v_na]);
        v_used := array_fill(0::bigint, ARRAY[v_na]);
        -- the currency of each account (the customer's: one per account), and as JSON, for the writes below: a text
        -- array indexed by send would be walked from its start at every subscript in a statement
        v_cur := array_fill(NULL::text, ARRAY[v_na]);
        v_ok := array_fill(false, ARRAY[v_n]);
        FOR v_i IN 1..v_n LOOP
          IF v_currency[v_i] IS NOT NULL THEN
            v_cur[v_acc_of[v_i]] := v_currency[v_i];
          END IF;
          IF v_row_limit[v_i] IS NOT NULL THEN
            v_limit[v_acc_of[v_i]] := v_row_limit[v_i];
            v_any_limit := true;
          END IF;
        END LOOP;
        IF v_any_limit THEN
          -- The daily-limit lock of each account with a limit, in account order (v_acc is sorted), held to commit:
          -- the usage read here and the usage written in step 5 are one step, so two concurrent batches of one
          -- account cannot both pass one limit. Taken before any balance slot, like every batch, so no deadlock.
          FOR v_a IN 1..v_na LOOP
            IF v_limit[v_a] IS NOT NULL THEN
              PERFORM pg_advisory_xact_lock(hashtextextended('streams.daily_limit:' || v_acc[v_a], 0));
            END IF;
          END LOOP;
          SELECT array_agg(CASE WHEN a.lim IS NOT NULL THEN
                             (SELECT coalesce(sum(d.count), 0) FROM streams.daily_usage d WHERE d.account_id = a.id AND d.day = p_day)
                           ELSE 0 END ORDER BY a.k)
            INTO v_used
            FROM unnest(v_acc, v_limit) WITH ORDINALITY a(id, lim, k);
        END IF;

        v_fp_ok := array_fill(false, ARRAY[v_n]);
        v_key_ok := array_fill(false, ARRAY[v_n]);
        v_run := array_fill(0::bigint, ARRAY[v_n]);
        v_need := array_fill(0::bigint, ARRAY[v_na]);
        v_avail := array_fill(0::bigint, ARRAY[v_na]);
        v_slot := array_fill(NULL::smallint, ARRAY[v_na]);
        v_pooled := array_fill(false, ARRAY[v_na]);
        v_slots_of := array_fill(0, ARRAY[v_na]);
        v_spent := array_fill(0::bigint, ARRAY[v_na]);
        v_count := array_fill(0, ARRAY[v_na]);
        v_balance := array_fill(0::bigint, ARRAY[v_na]);

        -- 2. duplicate fingerprints, then idempotency keys; the first send of a batch holding one wins (the send path
        -- keeps such sends to separate batches anyway)
        IF true = ANY(v_has_fp) THEN
          FOR v_i IN
            WITH cand AS (
              SELECT DISTINCT ON (r.stream_id, r.fp) r.i, r.stream_id, r.fp FROM unnest(v_rows) r
               WHERE r.fp IS NOT NULL AND v_state[r.i] IS NULL ORDER BY r.stream_id, r.fp, r.i
            ), ins AS (
              INSERT INTO streams.send_fingerprint AS f (stream_id, fp, expires_at)
              SELECT cand.stream_id, cand.fp, p_dedupe_until FROM cand ORDER BY cand.stream_id, cand.fp
              ON CONFLICT (stream_id, fp) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE f.expires_at <= p_now
              RETURNING f.stream_id, f.fp
            )
            SELECT cand.i FROM ins JOIN cand ON cand.stream_id = ins.stream_id AND cand.fp = ins.fp
          LOOP
            v_fp_ok[v_i] := true;
          END LOOP;
        END IF;

        IF true = ANY(v_has_key) THEN
          FOR v_i IN
            WITH cand AS (
              SELECT DISTINCT ON (r.stream_id, r.idem_key) r.i, r.stream_id, r.idem_key, r.idem_hash, r.idem_response FROM unnest(v_rows) r
               WHERE r.idem_key IS NOT NULL AND v_state[r.i] IS NULL AND (r.fp IS NULL OR v_fp_ok[r.i])
               ORDER BY r.stream_id, r.idem_key, r.i
            ), ins AS (
              INSERT INTO streams.idempotency_key AS ik (stream_id, key, request_hash, response, created_at)
              SELECT cand.stream_id, cand.idem_key, cand.idem_hash,
                     cand.idem_response || jsonb_build_object('price', round(v_amount[cand.i]::numeric / 1000000, 6), 'currency', v_currency[cand.i]),
                     p_now
                FROM cand ORDER BY cand.stream_id, cand.idem_key
              ON CONFLICT (stream_id, key) DO UPDATE
                SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created_at = EXCLUDED.created_at
                WHERE ik.created_at <= p_now - make_interval(secs => p_idem_ttl_seconds)
              RETURNING ik.stream_id, ik.key
            )
            SELECT cand.i FROM ins JOIN cand ON cand.stream_id = ins.stream_id AND cand.idem_key = ins.key
          LOOP
            v_key_ok[v_i] := true;
          END LOOP;
        END IF;

        -- 3. the money: what the sends still in the running would cost at most, per account
        FOR v_i IN 1..v_n LOOP
          IF v_state[v_i] IS NULL AND (NOT v_has_fp[v_i] OR v_fp_ok[v_i]) AND (NOT v_has_key[v_i] OR v_key_ok[v_i]) THEN
            v_a := v_acc_of[v_i];
            v_need[v_a] := v_need[v_a] + v_amount[v_i];
          END IF;
        END LOOP;
        FOR v_a IN 1..v_na LOOP
          CONTINUE WHEN v_need[v_a] = 0;
          -- any slot that holds enough for the whole batch and nobody holds
          SELECT s.slot, s.balance_micros, (SELECT sum(t.balance_micros) FROM streams.balance_slot t WHERE t.account_id = v_acc[v_a])
            INTO v_s, v_b, v_tot FROM streams.balance_slot s
           WHERE s.account_id = v_acc[v_a] AND s.balance_micros >= v_need[v_a]
           ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED;
          IF v_s IS NULL THEN
            -- Every such slot is busy. While the money is spread (at least half the slots hold enough), wait for one
            -- of them (its balance is checked again once free) rather than lock them all, which every concurrent
            -- batch would then do one after the other.
            SELECT count(*) INTO v_cnt FROM streams.balance_slot s WHERE s.account_id = v_acc[v_a] AND s.balance_micros >= v_need[v_a];
            IF v_cnt * 2 >= p_slots THEN
              SELECT s.slot, s.balance_micros, (SELECT sum(t.balance_micros) FROM streams.balance_slot t WHERE t.account_id = v_acc[v_a])
                INTO v_s, v_b, v_tot FROM streams.balance_slot s
               WHERE s.account_id = v_acc[v_a] AND s.balance_micros >= v_need[v_a]
               ORDER BY random() LIMIT 1 FOR UPDATE;
            END IF;
          END IF;
          IF v_s IS NOT NULL THEN
            v_slot[v_a] := v_s;
            v_avail[v_a] := v_b;
            v_balance[v_a] := v_tot;
          ELSE
            -- No slot holds enough on its own, or the money sits in a few slots (after a credit): lock them all (in
            -- slot order, so two of these never deadlock) and pool them; the rest is spread evenly after the debit.
            INSERT INTO streams.balance_slot (account_id, slot, balance_micros)
            SELECT v_acc[v_a], g, 0 FROM generate_series(0, p_slots - 1) g ON CONFLICT DO NOTHING;
            SELECT coalesce(sum(x.balance_micros), 0), count(*) INTO v_b, v_cnt
              FROM (SELECT s.balance_micros FROM streams.balance_slot s WHERE s.account_id = v_acc[v_a] ORDER BY s.slot FOR UPDATE) x;
            v_pooled[v_a] := true;
            v_avail[v_a] := v_b;
            v_balance[v_a] := v_b;
            v_slots_of[v_a] := v_cnt;
          END IF;
        END LOOP;

        -- 4. each send in batch order
        FOR v_i IN 1..v_n LOOP
          CONTINUE WHEN v_state[v_i] IS NOT NULL;
          v_a := v_acc_of[v_i];
          IF v_limit[v_a] IS NOT NULL AND v_used[v_a] >= v_limit[v_a] THEN
            v_state[v_i] := 'daily_limit';
          ELSIF v_has_fp[v_i] AND NOT v_fp_ok[v_i] THEN
            v_state[v_i] := 'duplicate';
          ELSIF v_amount[v_i] > 0 AND v_spent[v_a] + v_amount[v_i] > v_avail[v_a] THEN
            v_state[v_i] := 'payment_required';
          ELSIF v_has_key[v_i] AND NOT v_key_ok[v_i] THEN
            v_state[v_i] := 'key_in_use';
          ELSE
            v_state[v_i] := 'ok';
            v_ok[v_i] := true;
            v_used[v_a] := v_used[v_a] + 1;
            v_count[v_a] := v_count[v_a] + 1;
            v_spent[v_a] := v_spent[v_a] + v_amount[v_i];
            v_run[v_i] := v_spent[v_a];
          END IF;
          IF v_state[v_i] <> 'ok' THEN
            v_release_fp := v_release_fp OR v_fp_ok[v_i];
            v_release_key := v_release_key OR v_key_ok[v_i];
          END IF;
        END LOOP;

        -- 5. the writes
        IF v_release_fp THEN
          DELETE FROM streams.send_fingerprint f USING unnest(v_rows) r
           WHERE v_fp_ok[r.i] AND v_state[r.i] <> 'ok' AND f.stream_id = r.stream_id AND f.fp = r.fp;
        END IF;
        IF v_release_key THEN
          DELETE FROM streams.idempotency_key ik USING unnest(v_rows) r
           WHERE v_key_ok[r.i] AND v_state[r.i] <> 'ok' AND ik.stream_id = r.stream_id AND ik.key = r.idem_key;
        END IF;

        FOR v_a IN 1..v_na LOOP
          IF v_spent[v_a] > 0 THEN
            IF v_pooled[v_a] THEN
              v_b := v_avail[v_a] - v_spent[v_a];
              UPDATE streams.balance_slot s
                 SET balance_micros = v_b / v_slots_of[v_a] + CASE WHEN s.slot = 0 THEN v_b % v_slots_of[v_a] ELSE 0 END
               WHERE s.account_id = v_acc[v_a];
            ELSE
              UPDATE streams.balance_slot s SET balance_micros = s.balance_micros - v_spent[v_a]
               WHERE s.account_id = v_acc[v_a] AND s.slot = v_slot[v_a];
            END IF;
            -- the account's balance after the batch (as of when its slot was locked)
            v_balance[v_a] := v_balance[v_a] - v_spent[v_a];
          END IF;
          IF v_count[v_a] > 0 THEN
            -- the usage row of the balance slot this batch holds (slot 0 when it holds them all): no other send of
            -- the account can be on it now
            INSERT INTO streams.daily_usage AS d (account_id, day, slot, count)
            VALUES (v_acc[v_a], p_day, coalesce(v_slot[v_a], CASE WHEN v_pooled[v_a] THEN 0 END, floor(random() * p_slots)::smallint), v_count[v_a])
            ON CONFLICT (account_id, day, slot) DO UPDATE SET count = d.count + EXCLUDED.count;
          END IF;
        END LOOP;

        INSERT INTO streams.message (uuid, account_id, stream_id, campaign_id, sender, destination, iso2, text, encoding, segments,
                                     price_micros, currency, status, demo, created_at, updated_at)
        SELECT r.uuid, r.account_id, r.stream_id, r.campaign_id, r.sender, r.destination, r.iso2, r.stored_text, r.encoding, r.segments,
               v_amount[r.i], v_cur[v_acc_of[r.i]], 'accepted', r.demo, p_now, p_now
          FROM unnest(v_rows) r WHERE v_ok[r.i];

        -- Both events of each accepted send, in batch order, as one JSON array; the charged one only when money moved.
        -- Each balance after is the account's balance after the batch plus what the later sends of the batch took.
        -- One pass over the sends: each accepted send gives its events' text (accepted, then charged), joined in
        -- batch order.
        -- The events of the accepted sends (docs/decisions/0210): node's text of the batch's events without what only
        -- this statement knows (p_events, not parsed here), and per accepted send, in batch order, its position, price,
        -- the account's balance after it and the account's currency. The relay builds each send's accepted event and,
        -- when money moved, its charged event from them: the same events as 1798600000167's packed text.
        SELECT (count(*) + count(*) FILTER (WHERE v_amount[s.i] > 0))::integer,
               concat('{"e":', p_events,
                      ',"i":', array_to_json(array_agg(s.i ORDER BY s.i)),
                      ',"a":', array_to_json(array_agg(v_amount[s.i] ORDER BY s.i)),
                      ',"b":', array_to_json(array_agg(v_balance[v_acc_of[s.i]] + v_spent[v_acc_of[s.i]] - v_run[s.i] ORDER BY s.i)),
                      ',"c":', array_to_json(array_agg(v_cur[v_acc_of[s.i]] ORDER BY s.i)), '}')
          INTO v_events, v_packed
          FROM generate_series(1, v_n) s(i) WHERE v_ok[s.i];
        IF v_events > 0 THEN
          EXECUTE p_outbox_sql USING v_events, v_packed;
        END IF;

        -- the sends are numbered 1 to v_n in order (checked above): each answer by its position, in one pass
        RETURN QUERY SELECT s.i::integer, s.state, s.amount, s.currency FROM unnest(v_state, v_amount, v_currency) WITH ORDINALITY s(state, amount, currency, i) ORDER BY s.i;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION streams.accept_messages_compact(json, text, timestamptz, date, integer, bigint, timestamptz, integer, text)`);
  }
}
