import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTables, dropOutboxTables } from '@switchboard/platform';

/**
 * The streams schema: streams and their tokens, senders, stream events, the global malicious keyword list, the read
 * models fed by accounts (customers, balance, prices), messages, OTP codes, duplicate fingerprints, idempotency keys,
 * daily usage, and `accept_message`, the one-round-trip send (docs/decisions/0014-streams.md).
 */
export class Init1795400000000 implements MigrationInterface {
  name = 'Init1795400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE streams.customer (
        account_id bigint PRIMARY KEY,
        name text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active',
        active smallint NOT NULL DEFAULT 1,
        currency text NOT NULL,
        tps integer NOT NULL DEFAULT 0,
        daily_limit integer,
        custom_settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // The balance is split over a few rows ("slots") so concurrent sends of one account do not queue on one row
    // lock held through each commit's WAL flush. The balance is the sum of the slots.
    await q.query(`
      CREATE TABLE streams.balance_slot (
        account_id bigint NOT NULL,
        slot smallint NOT NULL,
        balance_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, slot)
      )`);

    await q.query(`
      CREATE TABLE streams.price (
        account_id bigint,
        iso2 text NOT NULL CHECK (iso2 ~ '^[A-Z]{2}$'),
        price_micros bigint NOT NULL CHECK (price_micros >= 0),
        currency text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX price_key ON streams.price ((coalesce(account_id, 0)), iso2)`);

    await q.query(`
      CREATE TABLE streams.stream (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_uid uuid NOT NULL UNIQUE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        stream_type smallint NOT NULL CHECK (stream_type IN (1, 2, 3, 4, 5, 7, 8)),
        status smallint NOT NULL DEFAULT 0 CHECK (status IN (-10, -1, 0, 1, 2)),
        static_service_type text,
        ip_acl text[] NOT NULL DEFAULT '{}',
        last_sent_time timestamptz,
        sender text,
        stream_tags text[] NOT NULL DEFAULT '{}',
        enable_sending boolean NOT NULL DEFAULT true,
        is_default boolean NOT NULL DEFAULT false,
        params jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(params) = 'object'),
        provider_secret text,
        provider_secret_fields text[] NOT NULL DEFAULT '{}',
        token_hash bytea NOT NULL UNIQUE,
        token_cipher text NOT NULL,
        inbox_role_ids bigint[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX stream_account_idx ON streams.stream (account_id, id) WHERE deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE streams.sender (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        name text NOT NULL,
        value text NOT NULL,
        type text NOT NULL DEFAULT 'outbound-only' CHECK (type IN ('inbound-outbound', 'inbound-only', 'outbound-only')),
        country text,
        approved smallint NOT NULL DEFAULT 0 CHECK (approved IN (0, 1, 2)),
        declined_reason text,
        default_metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX sender_value_key ON streams.sender (account_id, lower(value))`);
    await q.query(`CREATE INDEX sender_pending_idx ON streams.sender (approved, id)`);

    await q.query(`
      CREATE TABLE streams.malicious_keyword (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        word text NOT NULL CHECK (word <> ''),
        type smallint NOT NULL DEFAULT 1 CHECK (type IN (1, 2)),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX malicious_keyword_word_key ON streams.malicious_keyword (lower(word))`);

    await q.query(`
      CREATE TABLE streams.stream_event (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint NOT NULL REFERENCES streams.stream (id),
        name text NOT NULL,
        text text NOT NULL DEFAULT '',
        event_key text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX stream_event_key ON streams.stream_event (stream_id, event_key)`);
    await q.query(`CREATE INDEX stream_event_account_idx ON streams.stream_event (account_id, id)`);

    await q.query(`
      CREATE TABLE streams.message (
        uuid uuid PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint NOT NULL,
        campaign_id bigint,
        sender text NOT NULL,
        destination text NOT NULL,
        iso2 text,
        text text NOT NULL,
        encoding text,
        segments integer NOT NULL,
        price_micros bigint NOT NULL,
        currency text NOT NULL,
        status text NOT NULL DEFAULT 'accepted',
        outgoing_status text,
        error text,
        demo boolean NOT NULL DEFAULT false,
        refunded_micros bigint NOT NULL DEFAULT 0,
        sent_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX message_stream_time_idx ON streams.message (stream_id, created_at)`);
    await q.query(`CREATE INDEX message_account_time_idx ON streams.message (account_id, created_at)`);

    await q.query(`
      CREATE TABLE streams.send_fingerprint (
        stream_id bigint NOT NULL,
        fp bytea NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (stream_id, fp)
      )`);
    await q.query(`CREATE INDEX send_fingerprint_expiry_idx ON streams.send_fingerprint (expires_at)`);

    await q.query(`
      CREATE TABLE streams.idempotency_key (
        stream_id bigint NOT NULL,
        key text NOT NULL,
        request_hash bytea NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (stream_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_key_age_idx ON streams.idempotency_key (created_at)`);

    await q.query(`
      CREATE TABLE streams.daily_usage (
        account_id bigint NOT NULL,
        day date NOT NULL,
        slot smallint NOT NULL,
        count integer NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, day, slot)
      )`);

    await q.query(`
      CREATE TABLE streams.otp (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint NOT NULL,
        destination text NOT NULL,
        ip text,
        code_hash bytea NOT NULL,
        message_uuid uuid NOT NULL,
        failures integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        verified_at timestamptz,
        last_failure_at timestamptz
      )`);
    await q.query(`CREATE INDEX otp_destination_idx ON streams.otp (stream_id, destination, created_at)`);
    await q.query(`CREATE INDEX otp_ip_idx ON streams.otp (stream_id, ip, created_at)`);

    await createOutboxTables(q, 'streams');

    // One round trip per send: price, daily limit, duplicate fingerprint, balance debit, usage, message row,
    // idempotency record and the two outbox events in the caller's (implicit) transaction. A refusal that wrote
    // nothing returns a result; one that must undo a write raises (SB041 payment required, SB409 idempotency key
    // taken), which rolls the whole statement back.
    await q.query(`
      CREATE FUNCTION streams.accept_message(
        p_uuid uuid, p_account_id bigint, p_stream_id bigint, p_campaign_id bigint, p_sender text, p_destination text,
        p_iso2 text, p_stored_text text, p_encoding text, p_segments integer, p_demo boolean,
        p_now timestamptz, p_day date, p_slots integer, p_price_override bigint, p_default_price bigint,
        p_dedupe_fp bytea, p_dedupe_until timestamptz,
        p_idem_key text, p_idem_hash bytea, p_idem_response jsonb, p_idem_ttl_seconds integer,
        p_topic text, p_accepted jsonb, p_charged jsonb
      ) RETURNS TABLE (result text, amount_micros bigint, currency text, balance_after bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_currency text;
        v_daily_limit integer;
        v_price bigint;
        v_amount bigint;
        v_used bigint;
        v_total bigint;
        v_rows integer;
        v_balance bigint;
        v_slot smallint;
      BEGIN
        SELECT c.currency, c.daily_limit INTO v_currency, v_daily_limit FROM streams.customer c WHERE c.account_id = p_account_id;
        IF NOT FOUND THEN
          RETURN QUERY SELECT 'no_customer'::text, 0::bigint, NULL::text, NULL::bigint;
          RETURN;
        END IF;

        IF p_price_override IS NOT NULL THEN
          v_price := p_price_override;
        ELSE
          -- the account's own price, else the global one (account 0 in the key); both through price_key
          SELECT p.price_micros INTO v_price FROM streams.price p
           WHERE coalesce(p.account_id, 0) IN (p_account_id, 0) AND p.iso2 = p_iso2 AND p.currency = v_currency
           ORDER BY coalesce(p.account_id, 0) DESC LIMIT 1;
          IF NOT FOUND THEN
            IF p_default_price IS NULL THEN
              RETURN QUERY SELECT 'no_price'::text, 0::bigint, v_currency, NULL::bigint;
              RETURN;
            END IF;
            v_price := p_default_price;
          END IF;
        END IF;
        v_amount := v_price * p_segments;

        IF v_daily_limit IS NOT NULL THEN
          SELECT coalesce(sum(d.count), 0) INTO v_used FROM streams.daily_usage d WHERE d.account_id = p_account_id AND d.day = p_day;
          IF v_used >= v_daily_limit THEN
            RETURN QUERY SELECT 'daily_limit'::text, v_amount, v_currency, NULL::bigint;
            RETURN;
          END IF;
        END IF;

        IF p_dedupe_fp IS NOT NULL THEN
          INSERT INTO streams.send_fingerprint AS f (stream_id, fp, expires_at) VALUES (p_stream_id, p_dedupe_fp, p_dedupe_until)
          ON CONFLICT (stream_id, fp) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE f.expires_at <= p_now;
          IF NOT FOUND THEN
            RETURN QUERY SELECT 'duplicate'::text, v_amount, v_currency, NULL::bigint;
            RETURN;
          END IF;
        END IF;

        IF v_amount > 0 THEN
          -- any slot that holds enough and nobody holds
          UPDATE streams.balance_slot b SET balance_micros = b.balance_micros - v_amount
           WHERE b.account_id = p_account_id AND b.slot = (
             SELECT s.slot FROM streams.balance_slot s
              WHERE s.account_id = p_account_id AND s.balance_micros >= v_amount
              ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING b.slot INTO v_slot;
          IF v_slot IS NULL THEN
            -- Every slot that holds enough is busy. While the money is spread (at least half the slots hold enough),
            -- wait for one of them: the balance is checked again once it is free. Waiting for all of them instead
            -- would make every concurrent send do the same, one after the other.
            SELECT count(*) INTO v_rows FROM streams.balance_slot s WHERE s.account_id = p_account_id AND s.balance_micros >= v_amount;
            IF v_rows * 2 >= p_slots THEN
              UPDATE streams.balance_slot b SET balance_micros = b.balance_micros - v_amount
               WHERE b.account_id = p_account_id AND b.balance_micros >= v_amount AND b.slot = (
                 SELECT s.slot FROM streams.balance_slot s
                  WHERE s.account_id = p_account_id AND s.balance_micros >= v_amount
                  ORDER BY random() LIMIT 1)
              RETURNING b.slot INTO v_slot;
            END IF;
          END IF;
          IF v_slot IS NULL THEN
            -- No slot holds enough on its own, or the money sits in a few slots (after a credit): lock them all (in
            -- slot order, so two of these never deadlock), pool them, take the amount and spread the rest evenly so
            -- the next sends find free slots. This is also the exact check once the balance runs low.
            INSERT INTO streams.balance_slot (account_id, slot, balance_micros)
            SELECT p_account_id, g, 0 FROM generate_series(0, p_slots - 1) g ON CONFLICT DO NOTHING;
            SELECT sum(x.balance_micros), count(*) INTO v_total, v_rows
              FROM (SELECT s.balance_micros FROM streams.balance_slot s WHERE s.account_id = p_account_id ORDER BY s.slot FOR UPDATE) x;
            IF v_total < v_amount THEN
              RAISE EXCEPTION 'payment required' USING ERRCODE = 'SB041';
            END IF;
            v_total := v_total - v_amount;
            v_slot := 0;
            UPDATE streams.balance_slot s
               SET balance_micros = v_total / v_rows + CASE WHEN s.slot = 0 THEN v_total % v_rows ELSE 0 END
             WHERE s.account_id = p_account_id;
          END IF;
        END IF;
        SELECT coalesce(sum(s.balance_micros), 0) INTO v_balance FROM streams.balance_slot s WHERE s.account_id = p_account_id;

        -- The usage row of the balance slot this send holds: no other send of the account can be on it now.
        INSERT INTO streams.daily_usage AS d (account_id, day, slot, count)
        VALUES (p_account_id, p_day, coalesce(v_slot, floor(random() * p_slots)::smallint), 1)
        ON CONFLICT (account_id, day, slot) DO UPDATE SET count = d.count + 1;

        INSERT INTO streams.message (uuid, account_id, stream_id, campaign_id, sender, destination, iso2, text, encoding, segments,
                                     price_micros, currency, status, demo, created_at, updated_at)
        VALUES (p_uuid, p_account_id, p_stream_id, p_campaign_id, p_sender, p_destination, p_iso2, p_stored_text, p_encoding, p_segments,
                v_amount, v_currency, 'accepted', p_demo, p_now, p_now);

        IF p_idem_key IS NOT NULL THEN
          INSERT INTO streams.idempotency_key AS k (stream_id, key, request_hash, response, created_at)
          VALUES (p_stream_id, p_idem_key, p_idem_hash,
                  p_idem_response || jsonb_build_object('price', round(v_amount::numeric / 1000000, 6), 'currency', v_currency), p_now)
          ON CONFLICT (stream_id, key) DO UPDATE
            SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created_at = EXCLUDED.created_at
            WHERE k.created_at <= p_now - make_interval(secs => p_idem_ttl_seconds);
          IF NOT FOUND THEN
            RAISE EXCEPTION 'idempotency key in use' USING ERRCODE = 'SB409';
          END IF;
        END IF;

        -- both events in one INSERT; the charged one only when money moved
        INSERT INTO streams.outbox (event_id, topic, key, type, payload)
        SELECT (e->>'id')::uuid, p_topic, e->>'key', e->>'type', e
          FROM (VALUES
            (jsonb_set(jsonb_set(p_accepted, '{data,priceMicros}', to_jsonb(v_amount)), '{data,currency}', to_jsonb(v_currency)), true),
            (jsonb_set(jsonb_set(jsonb_set(p_charged, '{data,amountMicros}', to_jsonb(v_amount)), '{data,currency}', to_jsonb(v_currency)),
                       '{data,balanceAfterMicros}', to_jsonb(v_balance)), v_amount > 0 AND p_charged IS NOT NULL)
          ) AS x(e, wanted)
         WHERE wanted;

        RETURN QUERY SELECT 'ok'::text, v_amount, v_currency, v_balance;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS streams.accept_message`);
    await dropOutboxTables(q, 'streams');
    for (const t of ['otp', 'daily_usage', 'idempotency_key', 'send_fingerprint', 'message', 'stream_event', 'malicious_keyword', 'sender', 'stream', 'price', 'balance_slot', 'customer']) {
      await q.query(`DROP TABLE IF EXISTS streams.${t}`);
    }
  }
}
