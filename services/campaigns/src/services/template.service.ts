import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { CampaignTagDto as TagResponseShape, TemplateDto, TemplateVariantDto, WordDto, WordListDto } from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION } from '../campaigns.options';
import { Clock } from '../clock';
import { idOf, int, isObject, str, Violations } from './input';
import { checkText, COLOUR, loadWordLists, MAX_TEXT, parseVariants, VARIANT_COLOURS } from './variants-input';

type Body = Record<string, unknown>;

interface TemplateRow {
  id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}
interface VariantRow {
  id: string;
  template_id: string;
  name: string;
  text: string;
  ratio: number;
  color: string;
}

const variantDto = (v: VariantRow): TemplateVariantDto => ({ id: Number(v.id), template: Number(v.template_id), name: v.name, text: v.text, ratio: v.ratio, color: v.color });
const likeOf = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const validId = (id: string, what: string): string => {
  if (!/^\d{1,18}$/.test(id)) throw AppError.notFound(what);
  return id;
};

/**
 * Templates with their variants, word lists with their words, and campaign tags (spec 3, 7). Account-scoped: another
 * account's id is not found.
 */
@Injectable()
export class TemplateService {
  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  // ---------------------------------------------------------------- templates

  private async templateDtos(m: Pick<EntityManager, 'query'>, rows: TemplateRow[]): Promise<TemplateDto[]> {
    if (!rows.length) return [];
    const variants = await m.query<VariantRow[]>(
      `SELECT id::text, template_id::text, name, text, ratio, color FROM campaigns.variant WHERE template_id = ANY($1::bigint[]) ORDER BY position, id`,
      [rows.map((r) => r.id)],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      description: r.description,
      variants: variants.filter((v) => v.template_id === r.id).map(variantDto),
      createdAt: new Date(r.created_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
    }));
  }

  async listTemplates(query: Body): Promise<ListResult<TemplateDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name'], defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    if (typeof query.name === 'string' && query.name.trim()) {
      values.push(likeOf(query.name.trim()));
      where.push(`name ILIKE $${values.length}`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${f} ${d}`).join(', ');
    const rows = await this.ds.query<TemplateRow[]>(`SELECT id::text, name, description, created_at, updated_at FROM campaigns.template WHERE ${where.join(' AND ')} ORDER BY ${order}, id DESC LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.template WHERE ${where.join(' AND ')}`, values);
    return { items: await this.templateDtos(this.ds, rows), total: n };
  }

  private async templateRow(m: Pick<EntityManager, 'query'>, id: string, lock = false): Promise<TemplateRow> {
    const [row] = await m.query<TemplateRow[]>(
      `SELECT id::text, name, description, created_at, updated_at FROM campaigns.template WHERE id = $1 AND account_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [validId(id, 'template'), RequestContext.accountId()],
    );
    if (!row) throw AppError.notFound('template');
    return row;
  }

  async getTemplate(id: string): Promise<TemplateDto> {
    return (await this.templateDtos(this.ds, [await this.templateRow(this.ds, id)]))[0];
  }

  async templateVariants(id: string): Promise<ListResult<TemplateVariantDto>> {
    const t = await this.getTemplate(id);
    return { items: t.variants, total: t.variants.length };
  }

  async createTemplate(body: Body): Promise<TemplateDto> {
    const acc = RequestContext.accountId();
    const id = await this.ds.transaction(async (m) => {
      const v = new Violations();
      const name = str(v, body, 'name', { required: true, max: 255 });
      const description = str(v, body, 'description', { nullable: true, max: 2000 });
      const variants = parseVariants(v, 'variants', body.variants, await loadWordLists(m, acc));
      v.done();
      const now = this.clock.now();
      const [{ id: newId }] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.template (account_id, name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING id::text`,
        [acc, name, description ?? null, now],
      );
      if (variants) await this.replaceVariants(m, acc, newId, variants);
      return newId;
    });
    return this.getTemplate(id);
  }

  async updateTemplate(id: string, body: Body): Promise<TemplateDto> {
    const acc = RequestContext.accountId();
    await this.ds.transaction(async (m) => {
      await this.templateRow(m, id, true);
      const v = new Violations();
      const name = str(v, body, 'name', { max: 255 });
      if (body.name !== undefined && !name) v.add('name', 'This value should not be blank.', 'errors.client.required');
      const description = str(v, body, 'description', { nullable: true, max: 2000 });
      const variants = parseVariants(v, 'variants', body.variants, await loadWordLists(m, acc));
      v.done();
      await m.query(
        `UPDATE campaigns.template SET name = coalesce($3, name), description = CASE WHEN $4 THEN $5 ELSE description END, updated_at = $6 WHERE id = $1 AND account_id = $2`,
        [id, acc, name ?? null, description !== undefined, description ?? null, this.clock.now()],
      );
      if (variants) await this.replaceVariants(m, acc, id, variants);
    });
    return this.getTemplate(id);
  }

  private async replaceVariants(m: Pick<EntityManager, 'query'>, acc: string, templateId: string, variants: Array<{ name: string; text: string; ratio: number; color: string }>): Promise<void> {
    await m.query(`DELETE FROM campaigns.variant WHERE template_id = $1`, [templateId]);
    await m.query(
      `INSERT INTO campaigns.variant (account_id, template_id, name, text, ratio, color, position)
       SELECT $1, $2, t.name, t.text, t.ratio, t.color, t.position FROM unnest($3::text[], $4::text[], $5::int[], $6::text[], $7::int[]) AS t(name, text, ratio, color, position)`,
      [acc, templateId, variants.map((x) => x.name), variants.map((x) => x.text), variants.map((x) => x.ratio), variants.map((x) => x.color), variants.map((_, i) => i)],
    );
  }

  /** A copy named "copy X" (spec 5) with the same variants. */
  async copyTemplate(id: string): Promise<TemplateDto> {
    const acc = RequestContext.accountId();
    const newId = await this.ds.transaction(async (m) => {
      await this.templateRow(m, id);
      const now = this.clock.now();
      const [{ id: copy }] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.template (account_id, name, description, created_at, updated_at)
         SELECT account_id, left('copy ' || name, 255), description, $3, $3 FROM campaigns.template WHERE id = $1 AND account_id = $2 RETURNING id::text`,
        [id, acc, now],
      );
      await m.query(
        `INSERT INTO campaigns.variant (account_id, template_id, name, text, ratio, color, position)
         SELECT account_id, $2, name, text, ratio, color, position FROM campaigns.variant WHERE template_id = $1 ORDER BY position, id`,
        [id, copy],
      );
      return copy;
    });
    return this.getTemplate(newId);
  }

  async removeTemplate(id: string): Promise<void> {
    await this.templateRow(this.ds, id);
    await this.ds.query(`DELETE FROM campaigns.template WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
  }

  // ---------------------------------------------------------------- variants of templates (/variants)

  async listVariants(query: Body): Promise<ListResult<TemplateVariantDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name'], defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    if (query.template !== undefined && query.template !== '') {
      const t = idOf(query.template);
      if (!t) throw AppError.validation([{ propertyPath: 'template', message: 'a template id' }]);
      values.push(t);
      where.push(`template_id = $${values.length}`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${f} ${d}`).join(', ');
    const rows = await this.ds.query<VariantRow[]>(`SELECT id::text, template_id::text, name, text, ratio, color FROM campaigns.variant WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.variant WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(variantDto), total: n };
  }

  private async variantRow(m: Pick<EntityManager, 'query'>, id: string): Promise<VariantRow> {
    const [row] = await m.query<VariantRow[]>(`SELECT id::text, template_id::text, name, text, ratio, color FROM campaigns.variant WHERE id = $1 AND account_id = $2`, [
      validId(id, 'variant'),
      RequestContext.accountId(),
    ]);
    if (!row) throw AppError.notFound('variant');
    return row;
  }

  async getVariant(id: string): Promise<TemplateVariantDto> {
    return variantDto(await this.variantRow(this.ds, id));
  }

  /** One variant's fields: text (spintax, checked), name, ratio 0..100, colour. The template's total is the console's to keep at 100. */
  private async variantFields(m: Pick<EntityManager, 'query'>, body: Body, creating: boolean) {
    const acc = RequestContext.accountId();
    const v = new Violations();
    const text = str(v, body, 'text', { required: creating, max: MAX_TEXT, trim: false });
    if (typeof text === 'string') {
      if (!text.trim()) v.add('text', 'Every variant needs a text.', 'errors.client.allVariants');
      else checkText(v, 'text', text, await loadWordLists(m, acc));
    }
    const name = str(v, body, 'name', { max: 255 });
    const ratio = int(v, 'ratio', body.ratio, { min: 0, max: 100 });
    let color: string | undefined;
    if (body.color !== undefined) {
      if (typeof body.color !== 'string' || !COLOUR.test(body.color)) v.add('color', 'A colour is #RRGGBB.');
      else color = body.color.toLowerCase();
    }
    return { v, text: text ?? undefined, name: name || undefined, ratio: ratio ?? undefined, color };
  }

  async createVariant(body: Body): Promise<TemplateVariantDto> {
    const acc = RequestContext.accountId();
    const id = await this.ds.transaction(async (m) => {
      const templateId = idOf(body.template);
      const f = await this.variantFields(m, body, true);
      if (!templateId) f.v.add('template', 'This value should not be blank.', 'errors.client.required');
      f.v.done();
      await this.templateRow(m, templateId as string, true);
      const [{ n }] = await m.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.variant WHERE template_id = $1`, [templateId]);
      const [{ id: newId }] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.variant (account_id, template_id, name, text, ratio, color, position) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text`,
        [acc, templateId, f.name ?? `Variant ${n + 1}`, f.text, f.ratio ?? 0, f.color ?? VARIANT_COLOURS[n % VARIANT_COLOURS.length], n],
      );
      await m.query(`UPDATE campaigns.template SET updated_at = $2 WHERE id = $1`, [templateId, this.clock.now()]);
      return newId;
    });
    return this.getVariant(id);
  }

  async updateVariant(id: string, body: Body): Promise<TemplateVariantDto> {
    await this.ds.transaction(async (m) => {
      const row = await this.variantRow(m, id);
      const f = await this.variantFields(m, body, false);
      f.v.done();
      await m.query(`UPDATE campaigns.variant SET name = coalesce($2, name), text = coalesce($3, text), ratio = coalesce($4, ratio), color = coalesce($5, color) WHERE id = $1`, [
        id,
        f.name ?? null,
        f.text ?? null,
        f.ratio ?? null,
        f.color ?? null,
      ]);
      await m.query(`UPDATE campaigns.template SET updated_at = $2 WHERE id = $1`, [row.template_id, this.clock.now()]);
    });
    return this.getVariant(id);
  }

  async removeVariant(id: string): Promise<void> {
    await this.variantRow(this.ds, id);
    await this.ds.query(`DELETE FROM campaigns.variant WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
  }

  // ---------------------------------------------------------------- word lists and words

  private async wordListDtos(rows: Array<{ id: string; name: string; created_at: Date }>): Promise<WordListDto[]> {
    if (!rows.length) return [];
    const words = await this.ds.query<Array<{ id: string; word_list_id: string; value: string }>>(
      `SELECT id::text, word_list_id::text, value FROM campaigns.word WHERE word_list_id = ANY($1::bigint[]) ORDER BY id`,
      [rows.map((r) => r.id)],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      words: words.filter((w) => w.word_list_id === r.id).map((w) => ({ id: Number(w.id), wordList: Number(w.word_list_id), value: w.value })),
      createdAt: new Date(r.created_at).toISOString(),
    }));
  }

  async listWordLists(query: Body): Promise<ListResult<WordListDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name'], defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    if (typeof query.name === 'string' && query.name.trim()) {
      values.push(likeOf(query.name.trim()));
      where.push(`name ILIKE $${values.length}`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${f} ${d}`).join(', ');
    const rows = await this.ds.query<Array<{ id: string; name: string; created_at: Date }>>(
      `SELECT id::text, name, created_at FROM campaigns.word_list WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${q.take} OFFSET ${q.skip}`,
      values,
    );
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.word_list WHERE ${where.join(' AND ')}`, values);
    return { items: await this.wordListDtos(rows), total: n };
  }

  private async wordListRow(m: Pick<EntityManager, 'query'>, id: string) {
    const [row] = await m.query<Array<{ id: string; name: string; created_at: Date }>>(`SELECT id::text, name, created_at FROM campaigns.word_list WHERE id = $1 AND account_id = $2`, [
      validId(id, 'word list'),
      RequestContext.accountId(),
    ]);
    if (!row) throw AppError.notFound('word list');
    return row;
  }

  async getWordList(id: string): Promise<WordListDto> {
    return (await this.wordListDtos([await this.wordListRow(this.ds, id)]))[0];
  }

  /** A word list name is how spintax refers to it (`[[name]]`): no braces, brackets or bars, unique per account. */
  private wordListName(v: Violations, body: Body, required: boolean): string | undefined {
    const name = str(v, body, 'name', { required, max: 100 });
    if (typeof name === 'string' && /[{}[\]|]/.test(name)) v.add('name', 'A word list name cannot hold { } [ ] or |.', 'errors.client.xss');
    return name ?? undefined;
  }

  private words(v: Violations, raw: unknown): string[] | undefined {
    if (raw === undefined) return undefined;
    if (!Array.isArray(raw)) {
      v.add('words', 'A list of words.');
      return undefined;
    }
    const out: string[] = [];
    raw.forEach((w, i) => {
      const value = typeof w === 'string' ? w : isObject(w) && typeof w.value === 'string' ? w.value : null;
      if (value === null || !value.trim()) v.add(`words[${i}]`, 'This value should not be blank.', 'errors.client.required');
      else if (value.length > 255) v.add(`words[${i}]`, 'At most 255 characters.', 'errors.client.charLimit');
      else out.push(value.trim());
    });
    if (out.length > 10_000) v.add('words', 'At most 10000 words.', 'errors.client.max');
    return out;
  }

  private async uniqueName(m: Pick<EntityManager, 'query'>, name: string, except: string | null): Promise<void> {
    const [dup] = await m.query<unknown[]>(`SELECT 1 FROM campaigns.word_list WHERE account_id = $1 AND lower(name) = lower($2) AND id IS DISTINCT FROM $3::bigint`, [RequestContext.accountId(), name, except]);
    if (dup) throw AppError.validation([{ propertyPath: 'name', message: 'A word list with this name exists.', code: 'uniqVarName' }]);
  }

  async createWordList(body: Body): Promise<WordListDto> {
    const acc = RequestContext.accountId();
    const id = await this.ds.transaction(async (m) => {
      const v = new Violations();
      const name = this.wordListName(v, body, true);
      const words = this.words(v, body.words);
      v.done();
      await this.uniqueName(m, name as string, null);
      const now = this.clock.now();
      const [{ id: newId }] = await m.query<Array<{ id: string }>>(`INSERT INTO campaigns.word_list (account_id, name, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING id::text`, [acc, name, now]);
      if (words?.length) await m.query(`INSERT INTO campaigns.word (account_id, word_list_id, value) SELECT $1, $2, unnest($3::text[])`, [acc, newId, words]);
      return newId;
    });
    return this.getWordList(id);
  }

  async updateWordList(id: string, body: Body): Promise<WordListDto> {
    const acc = RequestContext.accountId();
    await this.ds.transaction(async (m) => {
      await this.wordListRow(m, id);
      const v = new Violations();
      const name = this.wordListName(v, body, false);
      const words = this.words(v, body.words);
      v.done();
      if (name) {
        await this.uniqueName(m, name, id);
        const current = await this.wordListRow(m, id);
        if (current.name.toLowerCase() !== name.toLowerCase()) await this.assertUnused(m, current.name);
        await m.query(`UPDATE campaigns.word_list SET name = $3, updated_at = $4 WHERE id = $1 AND account_id = $2`, [id, acc, name, this.clock.now()]);
      }
      if (words) {
        await m.query(`DELETE FROM campaigns.word WHERE word_list_id = $1`, [id]);
        if (words.length) await m.query(`INSERT INTO campaigns.word (account_id, word_list_id, value) SELECT $1, $2, unnest($3::text[])`, [acc, id, words]);
      }
    });
    return this.getWordList(id);
  }

  /**
   * A word list is referenced by name from spintax: renaming or deleting one that a campaign still to send refers to
   * (not aborted or finished) would leave its texts unknown to the runner. 409 naming the campaigns.
   */
  private async assertUnused(m: Pick<EntityManager, 'query'>, name: string): Promise<void> {
    const pattern = `\\[\\[\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\]\\]`;
    const used = await m.query<Array<{ id: string }>>(
      `SELECT DISTINCT c.id::text FROM campaigns.campaign c JOIN campaigns.campaign_variant v ON v.campaign_id = c.id
        WHERE c.account_id = $1 AND c.deleted_at IS NULL AND c.status NOT IN (4, 7) AND v.text ~* $2 ORDER BY 1 LIMIT 10`,
      [RequestContext.accountId(), pattern],
    );
    if (used.length) throw AppError.conflict(`the word list is used by campaign ${used.map((u) => u.id).join(', ')}: change their texts first`);
  }

  async removeWordList(id: string): Promise<void> {
    await this.ds.transaction(async (m) => {
      const row = await this.wordListRow(m, id);
      await this.assertUnused(m, row.name);
      await m.query(`DELETE FROM campaigns.word_list WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
    });
  }

  async listWords(query: Body): Promise<ListResult<WordDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'value'], defaultItemsPerPage: 500, maxItemsPerPage: 10_000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    const listId = query.wordList ?? query.word_list;
    if (listId !== undefined && listId !== '') {
      const l = idOf(listId);
      if (!l) throw AppError.validation([{ propertyPath: 'wordList', message: 'a word list id' }]);
      values.push(l);
      where.push(`word_list_id = $${values.length}`);
    }
    const order = Object.entries(q.order).map(([f, d]) => `${f} ${d}`).join(', ');
    const rows = await this.ds.query<Array<{ id: string; word_list_id: string; value: string }>>(
      `SELECT id::text, word_list_id::text, value FROM campaigns.word WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${q.take} OFFSET ${q.skip}`,
      values,
    );
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.word WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map((w) => ({ id: Number(w.id), wordList: Number(w.word_list_id), value: w.value })), total: n };
  }

  private async wordRow(id: string) {
    const [row] = await this.ds.query<Array<{ id: string; word_list_id: string; value: string }>>(`SELECT id::text, word_list_id::text, value FROM campaigns.word WHERE id = $1 AND account_id = $2`, [
      validId(id, 'word'),
      RequestContext.accountId(),
    ]);
    if (!row) throw AppError.notFound('word');
    return row;
  }

  async getWord(id: string): Promise<WordDto> {
    const w = await this.wordRow(id);
    return { id: Number(w.id), wordList: Number(w.word_list_id), value: w.value };
  }

  async createWord(body: Body): Promise<WordDto> {
    const v = new Violations();
    const listId = idOf(body.wordList ?? body.word_list);
    if (!listId) v.add('wordList', 'This value should not be blank.', 'errors.client.required');
    const value = str(v, body, 'value', { required: true, max: 255 });
    v.done();
    await this.wordListRow(this.ds, listId as string);
    const [{ id }] = await this.ds.query<Array<{ id: string }>>(`INSERT INTO campaigns.word (account_id, word_list_id, value) VALUES ($1, $2, $3) RETURNING id::text`, [RequestContext.accountId(), listId, value]);
    return this.getWord(id);
  }

  async updateWord(id: string, body: Body): Promise<WordDto> {
    await this.wordRow(id);
    const v = new Violations();
    const value = str(v, body, 'value', { required: true, max: 255 });
    v.done();
    await this.ds.query(`UPDATE campaigns.word SET value = $3 WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId(), value]);
    return this.getWord(id);
  }

  async removeWord(id: string): Promise<void> {
    await this.wordRow(id);
    await this.ds.query(`DELETE FROM campaigns.word WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
  }

  // ---------------------------------------------------------------- tags (/campaign_tags)

  async listTags(query: Body, dropdown = false): Promise<ListResult<TagResponseShape>> {
    const q = parseListQuery(dropdown ? { ...query, itemsPerPage: query.itemsPerPage ?? '2000' } : query, { sortable: ['id', 'value'], defaultItemsPerPage: 25, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    const search = query.value ?? query.search;
    if (typeof search === 'string' && search.trim()) {
      values.push(likeOf(search.trim()));
      where.push(`value ILIKE $${values.length}`);
    }
    const order = dropdown && !Object.keys(query).some((k) => k.startsWith('order')) ? 'value ASC' : Object.entries(q.order).map(([f, d]) => `${f} ${d}`).join(', ');
    const rows = await this.ds.query<Array<{ id: string; value: string }>>(`SELECT id::text, value FROM campaigns.tag WHERE ${where.join(' AND ')} ORDER BY ${order}, id LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.tag WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map((r) => ({ id: Number(r.id), value: r.value })), total: n };
  }

  private async tagRow(id: string) {
    const [row] = await this.ds.query<Array<{ id: string; value: string }>>(`SELECT id::text, value FROM campaigns.tag WHERE id = $1 AND account_id = $2`, [validId(id, 'tag'), RequestContext.accountId()]);
    if (!row) throw AppError.notFound('tag');
    return { id: Number(row.id), value: row.value };
  }

  getTag(id: string): Promise<TagResponseShape> {
    return this.tagRow(id);
  }

  /** Spec 5: a tag is at most 64 characters; the dropdown ignores an empty or existing value (answers the existing tag). */
  async createTag(body: Body): Promise<TagResponseShape> {
    const v = new Violations();
    const value = str(v, body, 'value', { required: true, max: 64 }) ?? str(v, body, 'name', { max: 64 });
    v.done();
    const acc = RequestContext.accountId();
    const [row] = await this.ds.query<Array<{ id: string; value: string }>>(
      `INSERT INTO campaigns.tag (account_id, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (account_id, lower(value)) DO UPDATE SET value = campaigns.tag.value RETURNING id::text, value`,
      [acc, value, this.clock.now()],
    );
    return { id: Number(row.id), value: row.value };
  }

  async updateTag(id: string, body: Body): Promise<TagResponseShape> {
    await this.tagRow(id);
    const v = new Violations();
    const value = str(v, body, 'value', { required: true, max: 64 });
    v.done();
    const acc = RequestContext.accountId();
    const [dup] = await this.ds.query<unknown[]>(`SELECT 1 FROM campaigns.tag WHERE account_id = $1 AND lower(value) = lower($2) AND id <> $3`, [acc, value, id]);
    if (dup) throw AppError.validation([{ propertyPath: 'value', message: 'A tag with this value exists.' }]);
    await this.ds.query(`UPDATE campaigns.tag SET value = $3 WHERE id = $1 AND account_id = $2`, [id, acc, value]);
    return this.tagRow(id);
  }

  async removeTag(id: string): Promise<void> {
    await this.tagRow(id);
    await this.ds.query(`DELETE FROM campaigns.tag WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
  }
}
