/** What the scanner reports; names lose their namespace prefix (`x:row` is `row`). */
export interface XmlHandler {
  open(name: string, attrs: string, selfClosing: boolean): void;
  close(name: string): void;
  text(text: string): void;
}

const ENTITY = /&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeXmlEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(ENTITY, (_, e: string) => {
    if (e[0] !== '#') return NAMED[e];
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

/** The value of one attribute in a tag's attribute text, entities decoded; undefined when absent. */
export function attr(attrs: string, name: string): string | undefined {
  const re = new RegExp(`(?:^|\\s)(?:[\\w-]+:)?${name}\\s*=\\s*("([^"]*)"|'([^']*)')`);
  const m = re.exec(attrs);
  if (!m) return undefined;
  return decodeXmlEntities(m[2] ?? m[3] ?? '');
}

const localName = (qname: string): string => {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
};

/** Longest markup kept across chunks before giving up: a tag or comment this long is not a spreadsheet. */
const MAX_CARRY = 4 * 1024 * 1024;

/**
 * A streaming XML tokenizer for the well-formed, machine-written parts of an XLSX: tags, text, CDATA; comments,
 * processing instructions and declarations are skipped. No DTD or entity expansion beyond the five predefined
 * entities and character references, so nothing in the file can make it fetch or grow anything.
 */
export class XmlScanner {
  private carry = '';

  constructor(private readonly handler: XmlHandler) {}

  push(chunk: string): void {
    const s = this.carry ? this.carry + chunk : chunk;
    const n = s.length;
    let pos = 0;
    const h = this.handler;
    while (pos < n) {
      const lt = s.indexOf('<', pos);
      if (lt < 0) {
        // an entity cut by the chunk boundary waits for the rest of it
        const amp = s.lastIndexOf('&');
        const cut = amp >= pos && s.indexOf(';', amp) < 0 ? amp : n;
        if (cut > pos) h.text(decodeXmlEntities(s.slice(pos, cut)));
        pos = cut;
        break;
      }
      if (lt > pos) h.text(decodeXmlEntities(s.slice(pos, lt)));
      pos = lt;
      if (s.startsWith('<!--', pos)) {
        const end = s.indexOf('-->', pos + 4);
        if (end < 0) break;
        pos = end + 3;
        continue;
      }
      if (s.startsWith('<![CDATA[', pos)) {
        const end = s.indexOf(']]>', pos + 9);
        if (end < 0) break;
        h.text(s.slice(pos + 9, end));
        pos = end + 3;
        continue;
      }
      if (s.startsWith('<?', pos)) {
        const end = s.indexOf('?>', pos + 2);
        if (end < 0) break;
        pos = end + 2;
        continue;
      }
      if (s.startsWith('<!', pos)) {
        const end = s.indexOf('>', pos + 2);
        if (end < 0) break;
        pos = end + 1;
        continue;
      }
      // a tag: '>' may appear inside quoted attribute values
      let i = pos + 1;
      let quote = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) {
          quote = c;
        } else if (c === 0x3e) {
          break;
        }
      }
      if (i >= n) break;
      const body = s.slice(pos + 1, i);
      pos = i + 1;
      if (body.charCodeAt(0) === 0x2f) {
        h.close(localName(body.slice(1).trim()));
        continue;
      }
      const selfClosing = body.charCodeAt(body.length - 1) === 0x2f;
      const inner = selfClosing ? body.slice(0, -1) : body;
      const sp = inner.search(/[\s]/);
      const name = localName(sp < 0 ? inner : inner.slice(0, sp));
      h.open(name, sp < 0 ? '' : inner.slice(sp), selfClosing);
      if (selfClosing) h.close(name);
    }
    this.carry = s.slice(pos);
    if (this.carry.length > MAX_CARRY) throw new Error('XML markup too long');
  }

  end(): void {
    if (this.carry.trim()) throw new Error('XML ends inside markup');
    this.carry = '';
  }
}
