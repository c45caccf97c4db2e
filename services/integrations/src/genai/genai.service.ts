import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  ErrorCode,
  GENAI_LIMITS,
  GENAI_SERVICES,
  GENAI_TONES,
  genAiContextBinding,
  GenAiSpaceAccess,
  Permission,
  type GenAiConversationContext,
  type GenAiService as GenAiServiceName,
  type GenAiSettingsDto,
  type GenAiStreamEvent,
  type GenAiTextAnswer,
  type GenAiUsageRow,
  type GenAiVerifyAnswer,
} from '@switchboard/contracts';
import { AppError, ProviderSecrets, RequestContext, type CheckedDestination } from '@switchboard/platform';
import { Clock } from '../clock';
import { parse } from '../http/input';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_OPTIONS, type ResolvedIntegrationsOptions } from '../integrations.options';
import { isPrivateHost } from '../services/integrations.service';
import { OutboundAddresses } from '../services/outbound';
import { GENAI_OPTIONS, type ResolvedGenAiOptions } from './genai.options';
import { checkAiSpintax, cleanAnswer, clip, generatePrompt, rephrasePrompt, respondPrompt, spintaxPrompt } from './prompts';
import { createProvider, GenAiError, type ChatMessage, type GenAiProvider, type GenerateResult, type TokenUsage } from './providers';

type Row = Record<string, unknown>;
const service = z.enum(GENAI_SERVICES);
const text = (max: number) => z.string().trim().min(1, 'required').max(max, `at most ${max} characters`);
const baseUrl = z.string().trim().max(500).url('a URL').nullable().optional();
const model = z.string().trim().min(1).max(200).regex(/^[\w.:/@-]+$/, 'letters, digits and . : / @ - _').nullable().optional();

const SettingsBody = z
  .object({ default_generative_service: service.optional(), service: service.optional(), api_key: z.string().max(500).optional(), base_url: baseUrl, model })
  .strict()
  .refine((b) => b.service !== undefined || b.default_generative_service !== undefined, { message: 'service or default_generative_service' })
  .refine((b) => b.service !== undefined || (b.api_key === undefined && b.base_url === undefined && b.model === undefined), { message: 'api_key, base_url and model need service', path: ['service'] });
const VerifyBody = z.object({ base_url: baseUrl, model }).strict();
/** The inbox space the call is made in (id or IRI): its AI permission applies (decision 0050). */
const space = z
  .union([z.number().int().positive(), z.string().regex(/^\d+$|^\/api\/spaces\/\d+$/, 'a space id or /api/spaces/{id}')])
  .transform((v) => String(v).replace(/^\/api\/spaces\//, ''))
  .optional();
const RephraseBody = z.object({ text: text(GENAI_LIMITS.text), tone: z.enum(GENAI_TONES), service: service.optional(), space }).strict();
const GenerateBody = z.object({ idea: text(GENAI_LIMITS.text), max_length: z.coerce.number().int().min(10).max(GENAI_LIMITS.maxLength).default(160), service: service.optional(), space }).strict();
const RespondBody = z.object({ conversation_goal_id: z.union([z.number().int().positive(), z.string().regex(/^\d+$|^\/api\/conversation_goals\/\d+$/)]), context: z.string().min(1).max(65_536), service: service.optional() }).strict();
const SpintaxBody = z.object({ text: text(GENAI_LIMITS.text), service: service.optional(), space }).strict();
const UsageQuery = z.object({ start: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(), end: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional() });

const needsKey = (s: GenAiServiceName) => s !== 'ollama';
/** A streamed spintax answer is cut past this many characters (the original is at most GENAI_LIMITS.text). */
const SPINTAX_MAX_CHARS = 8000;

/** One writing call, checked and prompted, before the provider is asked. */
interface WriteCall {
  gate: 'generative' | 'spintax';
  /** The inbox space named by the call, if any. */
  space: string | undefined;
  /** Whether the call is the inbox AI assistant's (INBOX_AI_ASSISTANT), whose per-space refusals apply. */
  assistant: boolean;
  chosen: GenAiServiceName | undefined;
  messages: ChatMessage[];
  maxTokens: number;
  /** The answer's length bound (a streamed answer is cut a little past it). */
  maxChars: number;
  finish: (t: string) => string;
  /** Throws when the finished answer may not be given (AI spintax that does not parse). */
  check?: (t: string) => void;
}

/**
 * Generative AI for an account (docs/decisions/0041-generative-ai.md): its providers and keys (sealed at rest under
 * INTEGRATIONS_SECRET, bound to the account and provider; never answered, logged or published), the key check, and
 * the four writing calls. Each call is gated by the account's switches (allow_generative_ai; allow_spintax_ai for
 * spintax), goes to the chosen provider with a prompt holding only what it needs, and counts its tokens per day.
 */
@Injectable()
export class GenAiService {
  private readonly log = new Logger('genai');
  private readonly vault: ProviderSecrets;
  private readonly contexts: ProviderSecrets | null;

  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(INTEGRATIONS_OPTIONS) integrations: ResolvedIntegrationsOptions,
    @Inject(GENAI_OPTIONS) private readonly options: ResolvedGenAiOptions,
    private readonly clock: Clock,
    private readonly outbound: OutboundAddresses,
  ) {
    this.vault = new ProviderSecrets(integrations.secret);
    this.contexts = options.contextKey ? new ProviderSecrets(options.contextKey) : null;
  }

  private account(): string {
    const p = RequestContext.principal();
    if (!p?.accountId) throw AppError.forbidden('no account selected', ErrorCode.AccessDenied);
    return p.accountId;
  }

  private binding = (accountId: string, s: string) => `genai:${accountId}:${s}`;

  // ---- settings ----

  async settings(): Promise<GenAiSettingsDto> {
    return this.settingsOf(this.account());
  }

  private async settingsOf(accountId: string): Promise<GenAiSettingsDto> {
    const [acct] = (await this.ds.query(`SELECT * FROM integrations.genai_account WHERE account_id = $1`, [accountId])) as Row[];
    const rows = (await this.ds.query(`SELECT service, key_sealed IS NOT NULL AS has_key, base_url, model, verified_at FROM integrations.genai_provider WHERE account_id = $1 ORDER BY service`, [accountId])) as Row[];
    return {
      default_generative_service: ((acct?.chosen_default_service ?? acct?.gen_default_service ?? null) as GenAiServiceName | null),
      allow_generative_ai: acct?.allow_generative_ai === true,
      allow_spintax_ai: acct?.allow_spintax_ai === true,
      providers: rows.map((r) => ({
        service: r.service as GenAiServiceName,
        has_key: r.has_key === true,
        base_url: (r.base_url as string | null) ?? null,
        model: (r.model as string | null) ?? null,
        verified_at: r.verified_at ? new Date(r.verified_at as string).toISOString() : null,
      })),
    };
  }

  /**
   * Sets one provider (checked against the vendor before anything is stored: a refused key is "invalid token" and
   * changes nothing) and/or the account's default provider.
   */
  async saveSettings(body: unknown): Promise<GenAiSettingsDto> {
    const accountId = this.account();
    const d = parse(SettingsBody, body);
    const now = this.clock.now();
    let sealed: string | null | undefined;
    if (d.service) {
      const [cur] = (await this.ds.query(`SELECT key_sealed, base_url, model FROM integrations.genai_provider WHERE account_id = $1 AND service = $2`, [accountId, d.service])) as Row[];
      const key = d.api_key !== undefined ? d.api_key.trim() || null : cur?.key_sealed ? this.openKey(accountId, d.service, cur.key_sealed as string) : null;
      const url = d.base_url !== undefined ? d.base_url : ((cur?.base_url as string | null) ?? null);
      const mdl = d.model !== undefined ? d.model : ((cur?.model as string | null) ?? null);
      if (url) await this.assertBaseUrl(url);
      if (needsKey(d.service) && !key) throw AppError.validation([{ propertyPath: 'api_key', message: `${d.service} needs a key` }]);
      await this.call(this.provider(d.service, key, url, mdl), (p) => p.verify(), d.service);
      sealed = key ? this.vault.seal(this.binding(accountId, d.service), { key }) : null;
      await this.ds.query(
        `INSERT INTO integrations.genai_provider (account_id, service, key_sealed, base_url, model, verified_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (account_id, service) DO UPDATE SET key_sealed = EXCLUDED.key_sealed, base_url = EXCLUDED.base_url, model = EXCLUDED.model, verified_at = EXCLUDED.verified_at, updated_at = EXCLUDED.updated_at`,
        [accountId, d.service, sealed, url, mdl, now],
      );
    }
    if (d.default_generative_service) {
      await this.ds.query(
        `INSERT INTO integrations.genai_account (account_id, chosen_default_service, updated_at) VALUES ($1, $2, to_timestamp(0))
         ON CONFLICT (account_id) DO UPDATE SET chosen_default_service = EXCLUDED.chosen_default_service`,
        [accountId, d.default_generative_service],
      );
    }
    return this.settingsOf(accountId);
  }

  /** POST genai/verify/{service}/{token}: the vendor's answer to the key, nothing stored (spec 5: "invalid token"). */
  async verify(s: string, token: string, body: unknown): Promise<GenAiVerifyAnswer> {
    const accountId = this.account();
    const name = parse(service, s);
    const d = parse(VerifyBody, body);
    const [cur] = (await this.ds.query(`SELECT base_url, model FROM integrations.genai_provider WHERE account_id = $1 AND service = $2`, [accountId, name])) as Row[];
    const url = d.base_url !== undefined ? d.base_url : ((cur?.base_url as string | null) ?? null);
    if (url) await this.assertBaseUrl(url);
    // Ollama has no key of its own: "-" checks it without one
    const key = token === '-' ? null : token;
    if (!key && needsKey(name)) throw new AppError(400, ErrorCode.InvalidProviderToken, 'invalid token');
    await this.call(this.provider(name, key, url, d.model !== undefined ? d.model : ((cur?.model as string | null) ?? null)), (p) => p.verify(), name);
    return { status: 1, service: name };
  }

  // ---- the writing calls ----
  // Each has a whole-JSON form (the spec's answer) and a streamed one (`...Stream`, the provider's pieces as they come
  // and then the same answer); both check the same things before the provider is asked.

  async rephrase(body: unknown): Promise<GenAiTextAnswer> {
    return this.write(this.rephraseCall(body));
  }

  rephraseStream(body: unknown, signal: AbortSignal): AsyncGenerator<GenAiStreamEvent> {
    return this.writeStream(() => this.rephraseCall(body), signal);
  }

  async generate(body: unknown): Promise<GenAiTextAnswer> {
    return this.write(this.generateCall(body));
  }

  generateStream(body: unknown, signal: AbortSignal): AsyncGenerator<GenAiStreamEvent> {
    return this.writeStream(() => this.generateCall(body), signal);
  }

  async respond(conversationId: string, body: unknown): Promise<GenAiTextAnswer> {
    return this.write(this.respondCall(conversationId, body));
  }

  respondStream(conversationId: string, body: unknown, signal: AbortSignal): AsyncGenerator<GenAiStreamEvent> {
    return this.writeStream(() => this.respondCall(conversationId, body), signal);
  }

  async spintax(body: unknown): Promise<GenAiTextAnswer> {
    return this.write(this.spintaxCall(body));
  }

  spintaxStream(body: unknown, signal: AbortSignal): AsyncGenerator<GenAiStreamEvent> {
    return this.writeStream(() => this.spintaxCall(body), signal);
  }

  private rephraseCall(body: unknown): WriteCall {
    const d = parse(RephraseBody, body);
    return { gate: 'generative', space: d.space, assistant: true, chosen: d.service, messages: rephrasePrompt(d.text, d.tone), maxTokens: GENAI_LIMITS.text, maxChars: GENAI_LIMITS.text, finish: (t) => clip(t, GENAI_LIMITS.text) };
  }

  private generateCall(body: unknown): WriteCall {
    const d = parse(GenerateBody, body);
    // tokens are roughly four characters: room for the whole message and no more
    return { gate: 'generative', space: d.space, assistant: true, chosen: d.service, messages: generatePrompt(d.idea, d.max_length), maxTokens: Math.ceil(d.max_length / 2), maxChars: d.max_length, finish: (t) => clip(t, d.max_length) };
  }

  private respondCall(conversationId: string, body: unknown): WriteCall {
    const accountId = this.account();
    const d = parse(RespondBody, body);
    if (!this.contexts) throw new AppError(503, ErrorCode.GenAiNotConfigured, 'generative AI is not set up on this installation (GENAI_CONTEXT_KEY)');
    const goalId = Number(String(d.conversation_goal_id).replace(/^\/api\/conversation_goals\//, ''));
    let ctx: GenAiConversationContext;
    try {
      ctx = JSON.parse(this.contexts.open(genAiContextBinding(accountId, conversationId), d.context).ctx) as GenAiConversationContext;
    } catch {
      throw AppError.validation([{ propertyPath: 'context', message: 'not a context the inbox gave for this conversation' }]);
    }
    if (ctx.goalId !== goalId) throw AppError.validation([{ propertyPath: 'conversation_goal_id', message: 'not the goal of the context' }]);
    if (ctx.expiresAt < this.clock.now().getTime()) throw AppError.validation([{ propertyPath: 'context', message: 'expired: ask the inbox again' }]);
    // the inbox checked the caller's AI permission in the conversation's space when it sealed the context; it is
    // checked again now against the inbox's latest snapshot, so a permission taken away since works at once (0063)
    return { gate: 'generative', space: ctx.spaceId, assistant: true, chosen: d.service, messages: respondPrompt(ctx), maxTokens: 400, maxChars: GENAI_LIMITS.text, finish: (t) => clip(t, GENAI_LIMITS.text) };
  }

  private spintaxCall(body: unknown): WriteCall {
    const d = parse(SpintaxBody, body);
    return {
      gate: 'spintax',
      // a campaign's spintax belongs to no space; named from the inbox, the space's AI permission applies
      space: d.space,
      assistant: d.space !== undefined,
      chosen: d.service,
      messages: spintaxPrompt(d.text),
      maxTokens: 2000,
      maxChars: SPINTAX_MAX_CHARS,
      finish: (t) => t,
      check: (out) => {
        const check = checkAiSpintax(d.text, out);
        if (!check.ok) {
          throw new AppError(422, ErrorCode.GenAiSpintaxInvalid, `the AI's spintax was not usable: ${check.reason}`, [
            { propertyPath: 'text', message: check.reason, ...(check.position !== null ? { code: `position ${check.position}` } : {}) },
          ]);
        }
      },
    };
  }

  // ---- usage ----

  async usage(q: unknown): Promise<GenAiUsageRow[]> {
    const accountId = this.account();
    const d = parse(UsageQuery, q);
    const end = d.end ?? this.clock.now().toISOString().slice(0, 10);
    const start = d.start ?? new Date(Date.parse(end) - 29 * 86_400_000).toISOString().slice(0, 10);
    const rows = (await this.ds.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, service, requests, input_tokens::text, output_tokens::text FROM integrations.genai_usage
       WHERE account_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day DESC, service`,
      [accountId, start, end],
    )) as Row[];
    return rows.map((r) => ({ day: r.day as string, service: r.service as GenAiServiceName, requests: Number(r.requests), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens) }));
  }

  // ---- internals ----

  /** The account's switch, the chosen provider and its key: everything a writing call needs before the vendor is asked. */
  private async prepare(c: WriteCall): Promise<{ accountId: string; name: GenAiServiceName; provider: GenAiProvider }> {
    const accountId = this.account();
    await this.assertSpace(accountId, c);
    const [acct] = (await this.ds.query(`SELECT * FROM integrations.genai_account WHERE account_id = $1`, [accountId])) as Row[];
    if (c.gate === 'generative' && acct?.allow_generative_ai !== true) throw AppError.forbidden('generative AI is not enabled for this account (allow_generative_ai)', ErrorCode.GenAiDisabled);
    if (c.gate === 'spintax' && acct?.allow_spintax_ai !== true) throw AppError.forbidden('AI spintax is not enabled for this account (allow_spintax_ai)', ErrorCode.GenAiDisabled);
    const name = c.chosen ?? ((acct?.chosen_default_service ?? acct?.gen_default_service ?? null) as GenAiServiceName | null);
    const [row] = name ? ((await this.ds.query(`SELECT key_sealed, base_url, model FROM integrations.genai_provider WHERE account_id = $1 AND service = $2`, [accountId, name])) as Row[]) : [];
    if (!name || !row || (needsKey(name) && !row.key_sealed)) {
      throw AppError.conflict(name ? `${name} is not set up in the AI settings` : 'no generative AI provider is chosen in the AI settings', ErrorCode.GenAiNotConfigured);
    }
    const key = row.key_sealed ? this.openKey(accountId, name, row.key_sealed as string) : null;
    return { accountId, name, provider: this.provider(name, key, row.base_url as string | null, row.model as string | null) };
  }

  /**
   * The per-space AI permission (spec 6, update_permissions; decision 0050), from the inbox's snapshot of the account's
   * spaces. A call naming a space: the space must be the account's (else "not found"), the caller one of its agents
   * (or an inbox admin), and the space must not take the caller's INBOX_AI_ASSISTANT away. An assistant call naming
   * none is refused when any space takes it away from the caller, so leaving the space out is no way around it.
   * Callers that are no user (API keys) have no per-space overrides.
   */
  private async assertSpace(accountId: string, c: WriteCall): Promise<void> {
    const p = RequestContext.principal();
    const userId = p?.kind === 'user' && p.userId && /^\d+$/.test(p.userId) ? p.userId : null;
    if (c.space === undefined && !(c.assistant && userId)) return;
    const [row] = (await this.ds.query(`SELECT spaces FROM integrations.genai_space_access WHERE account_id = $1`, [accountId])) as Row[];
    const spaces = GenAiSpaceAccess.shape.spaces.parse(row?.spaces ?? []);
    const refused = () => AppError.forbidden(`missing permission in this space: ${Permission.InboxAiAssistant}`);
    if (c.space !== undefined) {
      const s = spaces.find((x) => x.spaceId === c.space);
      if (!s) throw AppError.notFound('space');
      if (!userId) return;
      const admin = p?.superAdmin === true || p?.permissions.includes(Permission.InboxAdmin) === true;
      if (!admin && !s.members.includes(userId)) throw AppError.forbidden('you are not an agent of this space');
      if (c.assistant && s.aiRefused.includes(userId)) throw refused();
      return;
    }
    if (userId && spaces.some((s) => s.aiRefused.includes(userId))) {
      throw AppError.forbidden(`missing permission in a space: ${Permission.InboxAiAssistant} (name the space the call is made in)`);
    }
  }

  /** The whole answer in one JSON (the spec's form). */
  private async write(c: WriteCall): Promise<GenAiTextAnswer> {
    const { accountId, name, provider } = await this.prepare(c);
    const result: GenerateResult = await this.call(provider, (p) => p.generate({ messages: c.messages, maxTokens: c.maxTokens, temperature: 0.7 }), name);
    await this.countUsage(accountId, name, result.usage);
    return this.answer(c, name, result.model, cleanAnswer(result.text), result.usage);
  }

  /**
   * The answer streamed: the provider's text pieces as they come, then `done` with the answer `write` would give.
   * Bounded: the provider is asked for `maxTokens` at most, the whole stream gets `streamMaxMs` and each silence
   * `streamIdleMs`, and a text running past the call's length (plus a margin) is cut there; in each case, and when
   * `signal` fires (the client went away), the provider's request is aborted. Usage is counted for every answer the
   * provider gave, a cut or cancelled one included (with the tokens it reported, if any).
   */
  private async *writeStream(make: () => WriteCall, signal: AbortSignal): AsyncGenerator<GenAiStreamEvent> {
    const c = make();
    const { accountId, name, provider } = await this.prepare(c);
    const abort = new AbortController();
    const cancel = () => abort.abort();
    signal.addEventListener('abort', cancel, { once: true });
    const overall = setTimeout(() => abort.abort(new GenAiError('timeout', `the answer took longer than ${this.options.streamMaxMs} ms`)), this.options.streamMaxMs);
    const limit = Math.ceil(c.maxChars * 1.2) + 20;
    let raw = '';
    let usage: TokenUsage | null = null;
    let answered = false;
    try {
      try {
        for await (const chunk of provider.stream({ messages: c.messages, maxTokens: c.maxTokens, temperature: 0.7, signal: abort.signal })) {
          answered = true;
          if (chunk.type === 'usage') {
            usage = chunk.usage;
            continue;
          }
          const room = limit - raw.length;
          const piece = chunk.text.slice(0, room);
          raw += piece;
          if (piece) yield { type: 'text', text: piece };
          if (piece.length < chunk.text.length) break; // long enough: leaving the loop aborts the provider's request
        }
      } catch (e) {
        if (signal.aborted) throw new GenAiError('cancelled', 'the client went away');
        // the overall bound is a timeout like the others
        const reason: unknown = abort.signal.reason;
        throw this.toAppError(abort.signal.aborted && reason instanceof GenAiError ? reason : e, name);
      }
      await this.countUsage(accountId, name, usage ?? { input: 0, output: 0 });
      answered = false;
      yield { type: 'done', ...this.answer(c, name, provider.model, cleanAnswer(raw), usage ?? { input: 0, output: 0 }) };
    } finally {
      clearTimeout(overall);
      signal.removeEventListener('abort', cancel);
      abort.abort();
      if (answered && signal.aborted) await this.countUsage(accountId, name, usage ?? { input: 0, output: 0 }).catch(() => undefined);
    }
  }

  private answer(c: WriteCall, name: GenAiServiceName, model: string, cleaned: string, usage: TokenUsage): GenAiTextAnswer {
    const out = c.finish(cleaned);
    if (!out) throw new AppError(502, ErrorCode.GenAiUnavailable, 'the provider answered with no text');
    c.check?.(out);
    return { text: out, service: name, model, usage };
  }

  private async countUsage(accountId: string, name: GenAiServiceName, usage: TokenUsage): Promise<void> {
    await this.ds.query(
      `INSERT INTO integrations.genai_usage (account_id, day, service, requests, input_tokens, output_tokens) VALUES ($1, $2, $3, 1, $4, $5)
       ON CONFLICT (account_id, day, service) DO UPDATE SET requests = genai_usage.requests + 1, input_tokens = genai_usage.input_tokens + EXCLUDED.input_tokens,
         output_tokens = genai_usage.output_tokens + EXCLUDED.output_tokens`,
      [accountId, this.clock.now().toISOString().slice(0, 10), name, usage.input, usage.output],
    );
  }

  private openKey(accountId: string, s: string, sealed: string): string {
    try {
      return this.vault.open(this.binding(accountId, s), sealed).key;
    } catch {
      // a key sealed under another INTEGRATIONS_SECRET: the account has to enter it again
      throw AppError.conflict(`the stored ${s} key cannot be opened: enter it again in the AI settings`, ErrorCode.GenAiNotConfigured);
    }
  }

  private provider(name: GenAiServiceName, apiKey: string | null, baseUrl: string | null, model: string | null): GenAiProvider {
    return createProvider(name, { apiKey, baseUrl, model, timeoutMs: this.options.timeoutMs, idleTimeoutMs: this.options.streamIdleMs, connect: this.connect });
  }

  /**
   * Each provider request checks its host again and connects to the address it checked (pinned), as vendor requests
   * do: a base URL whose name moved to a private address after it was given is never called (decision 0063). The
   * operator's private base URLs (GENAI_PRIVATE_BASE_URLS) and `allowPrivateBaseUrls` connect as configured.
   */
  private readonly connect = async (url: URL): Promise<CheckedDestination | null> => {
    if (this.options.allowPrivateBaseUrls || this.options.privateBaseUrls.includes(url.origin)) return null;
    return this.outbound.check(url);
  };

  /** Runs a provider call; its failures become the API's errors (never with the key or the vendor's words about it). */
  private async call<T>(p: GenAiProvider, fn: (p: GenAiProvider) => Promise<T>, name: string): Promise<T> {
    try {
      return await fn(p);
    } catch (e) {
      return Promise.reject(this.toAppError(e, name));
    }
  }

  private toAppError(e: unknown, name: string): unknown {
    if (!(e instanceof GenAiError)) return e;
    this.log.warn(`${name}: ${e.code}${e.vendorStatus ? ` (HTTP ${e.vendorStatus})` : ''}`);
    switch (e.code) {
      case 'invalid_token':
        return new AppError(400, ErrorCode.InvalidProviderToken, 'invalid token');
      case 'timeout':
        return new AppError(504, ErrorCode.ConnectionTimeout, `${name} did not answer in time`);
      case 'rate_limited':
        return AppError.tooMany(`${name}'s rate limit or quota was reached`);
      case 'address_refused':
        return new AppError(502, ErrorCode.GenAiUnavailable, `${name} cannot be called: ${e.message}`.slice(0, 300));
      case 'rejected':
        return new AppError(422, ErrorCode.GenAiRejected, `${name} refused the request: ${e.message.replace(/^the provider refused the request \(HTTP \d+\): ?/, '')}`.slice(0, 300));
      default:
        return new AppError(502, ErrorCode.GenAiUnavailable, `${name} is unavailable`);
    }
  }

  private async assertBaseUrl(u: string): Promise<void> {
    const url = new URL(u);
    const bad = (message: string) => AppError.validation([{ propertyPath: 'base_url', message }]);
    if (url.username || url.password || url.search || url.hash) throw bad('a base URL without credentials, query or fragment');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('http or https');
    if (this.options.allowPrivateBaseUrls || this.options.privateBaseUrls.includes(url.origin)) return;
    if (url.protocol !== 'https:') throw bad('https only');
    if (isPrivateHost(url.hostname)) throw bad('a public host (private ones are listed by the operator in GENAI_PRIVATE_BASE_URLS)');
    const refused = await this.outbound.refusal(u);
    if (refused) throw bad(`a public host (private ones are listed by the operator in GENAI_PRIVATE_BASE_URLS): ${refused}`);
  }
}
