// text array literal '{a,b,NULL}' → PostgreSQL binary array
const OID = { uuid: 2950, float8: 701, int8: 20, int2: 21, bool: 16, text: 25, int4: 23 };
function parseLit(s) { // simple: elements without quotes except text (pgArrayElement quoting)
  const inner = s.slice(1, -1); if (inner === '') return [];
  const out = []; let i = 0;
  while (i <= inner.length) {
    if (inner[i] === '"') { let j = i + 1, v = ''; while (inner[j] !== '"') { if (inner[j] === '\\') j++; v += inner[j++]; } out.push(v); i = j + 2; }
    else { let j = inner.indexOf(',', i); if (j < 0) j = inner.length; const v = inner.slice(i, j); out.push(v === 'NULL' ? null : v); i = j + 1; }
  }
  return out;
}
function enc(type, lit) {
  const els = parseLit(lit);
  const parts = []; let hasNull = 0;
  for (const e of els) {
    if (e === null) { hasNull = 1; const b = Buffer.alloc(4); b.writeInt32BE(-1); parts.push(b); continue; }
    let d;
    switch (type) {
      case 'uuid': d = Buffer.from(e.replace(/-/g, ''), 'hex'); break;
      case 'float8': d = Buffer.alloc(8); d.writeDoubleBE(Number(e)); break;
      case 'int8': d = Buffer.alloc(8); d.writeBigInt64BE(BigInt(e)); break;
      case 'int4': d = Buffer.alloc(4); d.writeInt32BE(Number(e)); break;
      case 'int2': d = Buffer.alloc(2); d.writeInt16BE(Number(e)); break;
      case 'bool': d = Buffer.from([e === 't' ? 1 : 0]); break;
      case 'text': d = Buffer.from(e, 'utf8'); break;
    }
    const l = Buffer.alloc(4); l.writeInt32BE(d.length); parts.push(l, d);
  }
  const h = Buffer.alloc(20); h.writeInt32BE(1, 0); h.writeInt32BE(hasNull, 4); h.writeInt32BE(OID[type], 8); h.writeInt32BE(els.length, 12); h.writeInt32BE(1, 16);
  if (els.length === 0) { const z = Buffer.alloc(12); z.writeInt32BE(0, 0); z.writeInt32BE(0, 4); z.writeInt32BE(OID[type], 8); return z; }
  return Buffer.concat([h, ...parts]);
}
const TYPES = ['uuid', 'float8', 'int8', 'int8', 'int8', 'int8', 'int8', 'uuid', 'float8', 'int2', 'bool', 'bool', 'text', 'int4', 'text', 'int4'];
module.exports = (values) => values.map((v, i) => (i < 16 ? enc(TYPES[i], v) : v));
