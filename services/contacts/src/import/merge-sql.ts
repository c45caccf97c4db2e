/**
 * The set-based statements of an import, run once per batch inside the import's transaction on the rows COPYed
 * into the session's `stage` table. Parameters: $1 account, $2 import list, $3 contact list (contacts only).
 *
 * Duplicates: within a batch, `row_number()` keeps the first row of each number; across batches, the upsert's
 * `WHERE c.last_import_id IS DISTINCT FROM $2` refuses to touch a contact this import already wrote, so the later
 * row is not returned and is recorded as a duplicate. A number already known from another import is not a
 * duplicate: the existing contact joins the list (names and variables from the file fill in or replace values).
 */
export const CREATE_STAGE_SQL = `
  CREATE TEMP TABLE stage (
    row_no integer NOT NULL,
    phone text NOT NULL,
    normalized_phone text COLLATE "C",
    country text,
    timezone text,
    state smallint NOT NULL,
    error text,
    first_name text,
    last_name text,
    email text,
    -- text: only the rows that become contacts pay for reading it as jsonb
    variables text NOT NULL
  ) ON COMMIT DROP`;

const REJECTED_COLUMNS = 'account_id, import_list_id, row_no, state, error, phone, normalized_phone, country, first_name, last_name, email';

export const MERGE_CONTACTS_SQL = `
WITH s AS (
  SELECT s.*, (bl.hit IS NOT NULL) AS bl,
         row_number() OVER (PARTITION BY s.normalized_phone ORDER BY s.row_no) AS rk
    FROM stage s
    -- one index probe per valid row, whatever the blacklist's size (a join could pick a scan of the whole blacklist)
    LEFT JOIN LATERAL (
      SELECT 1 AS hit FROM contacts.black_list b WHERE s.state = 0 AND b.account_id = $1 AND b.normalized_phone = s.normalized_phone LIMIT 1
    ) bl ON true
),
up AS (
  INSERT INTO contacts.contact AS c (account_id, phone, normalized_phone, country, timezone, first_name, last_name, email, variables, list_ids, import_list_id, last_import_id)
  SELECT $1, phone, normalized_phone, country, timezone, first_name, last_name, email, variables::jsonb, ARRAY[$3::bigint], $2, $2
    FROM s WHERE state = 0 AND NOT bl AND rk = 1 ORDER BY row_no
  ON CONFLICT (account_id, normalized_phone) DO UPDATE SET
    first_name = coalesce(EXCLUDED.first_name, c.first_name),
    last_name = coalesce(EXCLUDED.last_name, c.last_name),
    email = coalesce(EXCLUDED.email, c.email),
    variables = c.variables || EXCLUDED.variables,
    list_ids = CASE WHEN c.opted_out_at IS NULL AND NOT c.list_ids @> ARRAY[$3::bigint] THEN c.list_ids || $3::bigint ELSE c.list_ids END,
    last_import_id = EXCLUDED.last_import_id,
    updated_at = now()
  WHERE c.last_import_id IS DISTINCT FROM EXCLUDED.last_import_id
  RETURNING c.normalized_phone, c.opted_out_at, (c.xmax = 0) AS created
),
rej AS (
  INSERT INTO contacts.import_row_error (${REJECTED_COLUMNS})
  SELECT $1, $2, s.row_no,
         CASE WHEN s.state <> 0 THEN s.state WHEN s.bl OR u.opted_out_at IS NOT NULL THEN 3 ELSE 4 END,
         CASE WHEN s.state <> 0 THEN s.error WHEN s.bl THEN 'blacklisted' WHEN u.opted_out_at IS NOT NULL THEN 'opted out' ELSE 'duplicate of an earlier row' END,
         s.phone, s.normalized_phone, s.country, s.first_name, s.last_name, s.email
    FROM s LEFT JOIN up u ON u.normalized_phone = s.normalized_phone AND s.state = 0 AND NOT s.bl AND s.rk = 1
   WHERE s.state <> 0 OR s.bl OR u.normalized_phone IS NULL OR u.opted_out_at IS NOT NULL
   ORDER BY s.row_no
  RETURNING state
)
SELECT (SELECT count(*) FROM up WHERE opted_out_at IS NULL)::int AS added,
       (SELECT count(*) FROM up WHERE opted_out_at IS NULL AND created)::int AS created,
       (SELECT count(*) FROM rej WHERE state = 1)::int AS invalid,
       (SELECT count(*) FROM rej WHERE state = 2)::int AS not_mobile,
       (SELECT count(*) FROM rej WHERE state = 3)::int AS blacklisted,
       (SELECT count(*) FROM rej WHERE state = 4)::int AS duplicates,
       '[]'::json AS added_phones`;

/** Blacklist imports: valid numbers join the blacklist; contacts with them are blocked at once. */
export const MERGE_BLACKLIST_SQL = `
WITH s AS (
  SELECT s.*, row_number() OVER (PARTITION BY s.normalized_phone ORDER BY s.row_no) AS rk FROM stage s
),
ins AS (
  INSERT INTO contacts.black_list (account_id, phone, normalized_phone, import_list_id)
  SELECT $1, phone, normalized_phone, $2 FROM s WHERE state = 0 AND rk = 1 ORDER BY row_no
  ON CONFLICT (account_id, normalized_phone) DO NOTHING
  RETURNING normalized_phone
),
blk AS (
  UPDATE contacts.contact c SET blocked = true, updated_at = now()
    FROM ins WHERE c.account_id = $1 AND c.normalized_phone = ins.normalized_phone
  RETURNING c.id
),
rej AS (
  INSERT INTO contacts.import_row_error (${REJECTED_COLUMNS})
  SELECT $1, $2, s.row_no, CASE WHEN s.state <> 0 THEN s.state ELSE 4 END,
         CASE WHEN s.state <> 0 THEN s.error ELSE 'already blacklisted' END,
         s.phone, s.normalized_phone, s.country, s.first_name, s.last_name, s.email
    FROM s LEFT JOIN ins ON ins.normalized_phone = s.normalized_phone AND s.state = 0 AND s.rk = 1
   WHERE s.state <> 0 OR ins.normalized_phone IS NULL
   ORDER BY s.row_no
  RETURNING state
)
SELECT (SELECT count(*) FROM ins)::int AS added,
       (SELECT count(*) FROM blk)::int AS created,
       (SELECT count(*) FROM rej WHERE state = 1)::int AS invalid,
       (SELECT count(*) FROM rej WHERE state = 2)::int AS not_mobile,
       (SELECT count(*) FROM rej WHERE state = 3)::int AS blacklisted,
       (SELECT count(*) FROM rej WHERE state = 4)::int AS duplicates,
       (SELECT coalesce(json_agg(normalized_phone), '[]'::json) FROM ins) AS added_phones`;

export interface MergeResult {
  added: number;
  created: number;
  invalid: number;
  not_mobile: number;
  blacklisted: number;
  duplicates: number;
  added_phones: string[];
}
