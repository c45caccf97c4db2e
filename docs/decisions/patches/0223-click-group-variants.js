const rm = (t, cte) => t.replace(new RegExp(`\\), ${cte} AS \\(\\n[\\s\\S]*?(?=\\n  \\), |\\n  \\)\\n  SELECT 1)`), `), ${cte} AS (SELECT 1`);
module.exports = {
  noOutbox: (t) => rm(t, 'outbox').replace('outbox AS (SELECT 1', 'outbox AS (SELECT $17::int, $18::text, $19::uuid'),
  noClick: (t) => rm(t, 'ins'),
  noRollup: (t) => rm(t, 'rollup'),
  onlyC: (t) => rm(rm(rm(t, 'outbox'), 'ins'), 'rollup').replace('outbox AS (SELECT 1', 'outbox AS (SELECT $17::int, $18::text, $19::uuid'),
  lz4: (t) => t.replace('INSERT INTO links.outbox ', 'INSERT INTO links.outbox_lz4 '),
  ext: (t) => t.replace('INSERT INTO links.outbox ', 'INSERT INTO links.outbox_ext '),
};
const P = `$1::uuid[], $2::float8[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::uuid[], $9::float8[], $10::smallint[], $11::boolean[], $12::boolean[], $13::text[], $14::int[], $15::text[], $16::int[]`;
const G = (t) => `INSERT INTO ${t} VALUES (now(), ${P}, $17::int, $18::text, $19::uuid)`;
module.exports.bind = () => `SELECT cardinality($1::uuid[]) + cardinality($2::float8[]) + cardinality($3::bigint[]) + cardinality($4::bigint[]) + cardinality($5::bigint[]) + cardinality($6::bigint[]) + cardinality($7::bigint[]) + cardinality($8::uuid[]) + cardinality($9::float8[]) + cardinality($10::smallint[]) + cardinality($11::boolean[]) + cardinality($12::boolean[]) + cardinality($13::text[]) + cardinality($14::int[]) + cardinality($15::text[]) + cardinality($16::int[]) + coalesce($17::int, 0) + coalesce(length($18::text), 0) + coalesce(length($19::uuid::text), 0)`;
module.exports.gExt = () => G('links.click_gx');
module.exports.gPglz = () => G('links.click_g');
module.exports.SETUP = '';
