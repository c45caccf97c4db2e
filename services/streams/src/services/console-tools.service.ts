import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ErrorCode, StreamStatus, StreamType, type Violation } from '@switchboard/contracts';
import { AppError, RequestContext } from '@switchboard/platform';
import type { DemoSendDto } from '../dtos/stream.dto';
import type { MessageResponseDto } from '../dtos/sender.dto';
import type { StreamEntity } from '../entities';
import { TelegramClient, WhatsAppClient, type WhatsAppPhoneNumber } from '../providers/provider-clients';
import { IpAcl } from '../rules/ip-acl';
import { webhookVerifyToken } from '../rules/secret-box';
import { channelOf, providerConfigured, requiredSetting } from '../rules/stream-params';
import { STREAMS_CONNECTION, STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import type { ActiveStream } from './lookups.service';
import { LookupsService } from './lookups.service';
import { SendService, truthy, type SendAnswer } from './send.service';
import { StreamService, streamIdFrom } from './stream.service';
import type { DiagnosticCheck } from '@switchboard/contracts';

export type { DiagnosticCheck };

/** Demo result keys (spec 8, demo SMS responses). */
export type DemoResult = 'success' | 'phone_not_entered' | 'phone_invalid' | 'message_empty' | 'sender_not_exist' | 'failed';

export interface DemoAnswer {
  code: 'OK' | 'REQUEST_VALIDATION_ERROR' | 'SENT_FAILED';
  result: DemoResult;
  response: { success: boolean; message_uuid?: string; error?: { code: string | number; message: string } } & Partial<SendAnswer>;
  violations?: Violation[];
}

/** Message send codes of spec 8: ok 1, invalid message 2, missing phone 3, invalid phone 4, missing stream 5, missing sender 6, sent failed 7. */
export const MessageSendCode = { Ok: 1, InvalidMessage: 2, MissingPhone: 3, InvalidPhone: 4, MissingStream: 5, MissingSender: 6, SentFailed: 7, Undelivered: 8 } as const;

export interface MessageResponseAnswer {
  code: number;
  message_uuid?: string;
  stream_uid?: string;
  error?: { code: string | number; message: string };
}


/** The console's stream tools: demo sends, replies, snippets, diagnostics, provider previews and proxies. */
@Injectable()
export class ConsoleToolsService {
  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    private readonly streams: StreamService,
    private readonly sends: SendService,
    private readonly lookups: LookupsService,
    private readonly whatsapp: WhatsAppClient,
    private readonly telegram: TelegramClient,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
  ) {}

  private active(r: StreamEntity): ActiveStream {
    const secrets = this.streams.openSecrets(r);
    return {
      id: r.id,
      accountId: r.accountId,
      streamUid: r.streamUid,
      name: r.name,
      streamType: r.streamType,
      status: r.status,
      enableSending: r.enableSending,
      sender: r.sender,
      params: r.params,
      acl: new IpAcl(r.ipAcl),
      checkIpAcl: r.params.check_ip_acl !== 0,
      providerReady: providerConfigured(r.streamType, r.params, secrets),
    };
  }

  /** `POST /streams/demo`: a real send through the same pipeline, answered with the demo result codes. */
  async demo(dto: DemoSendDto): Promise<DemoAnswer> {
    const row = await this.streams.find(streamIdFrom(dto.streamId));
    try {
      const sent = await this.sends.send(this.active(row), { phone: dto.phone, message: dto.message, ...(dto.sender ? { sender: dto.sender } : {}), ...(dto.payload ? { payload: dto.payload } : {}) }, { demo: true });
      return { code: 'OK', result: 'success', response: { success: true, ...sent.body } };
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      const v = e.violations ?? [];
      const on = (field: string) => v.find((x) => x.propertyPath === field);
      if (e.code === ErrorCode.RequestValidation) {
        const result: DemoResult = on('phone') ? (on('phone')?.code === 'required' ? 'phone_not_entered' : 'phone_invalid') : on('message') ? 'message_empty' : on('sender') ? 'sender_not_exist' : 'failed';
        return { code: 'REQUEST_VALIDATION_ERROR', result, violations: v, response: { success: false, error: { code: e.code, message: e.message } } };
      }
      const result: DemoResult = /sender/.test(e.message) ? 'sender_not_exist' : 'failed';
      return { code: 'SENT_FAILED', result, response: { success: false, error: { code: e.code, message: e.message } } };
    }
  }

  /** `POST /message_responses/send`: a reply from the console through a two-way (or WhatsApp) stream. */
  async reply(dto: MessageResponseDto): Promise<MessageResponseAnswer> {
    if (dto.message === undefined || dto.message === null || typeof dto.message !== 'string' || dto.message.trim() === '') return { code: MessageSendCode.InvalidMessage };
    if (dto.phone === undefined || dto.phone === null || dto.phone === '') return { code: MessageSendCode.MissingPhone };
    let row: StreamEntity | null = null;
    if (dto.streamId !== undefined && dto.streamId !== null && dto.streamId !== '') {
      row = await this.streams.find(streamIdFrom(dto.streamId));
      if (row.streamType !== StreamType.TwoWay && row.streamType !== StreamType.WhatsApp) return { code: MessageSendCode.MissingStream, error: { code: ErrorCode.InvalidArgument, message: 'replies go through a two-way or WhatsApp stream' } };
    } else {
      row = await this.streams.repo
        .qb('s')
        .andWhere('s.deletedAt IS NULL')
        .andWhere('s.streamType = :t', { t: StreamType.TwoWay })
        .andWhere('s.status IN (0, 1)')
        .orderBy('s.isDefault', 'DESC')
        .addOrderBy('s.id', 'ASC')
        .getOne();
    }
    if (!row) return { code: MessageSendCode.MissingStream };
    if (channelOf(row.streamType) === 'sms' && !dto.sender && !row.sender) return { code: MessageSendCode.MissingSender, stream_uid: row.streamUid };
    try {
      const sent = await this.sends.send(this.active(row), { phone: dto.phone, message: dto.message, ...(dto.sender ? { sender: dto.sender } : {}) });
      return { code: MessageSendCode.Ok, message_uuid: sent.body.message_uuid, stream_uid: row.streamUid };
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      const v = e.violations ?? [];
      if (v.some((x) => x.propertyPath === 'phone')) return { code: MessageSendCode.InvalidPhone, stream_uid: row.streamUid };
      if (v.some((x) => x.propertyPath === 'sender')) return { code: MessageSendCode.MissingSender, stream_uid: row.streamUid };
      if (v.some((x) => x.propertyPath === 'message')) return { code: MessageSendCode.InvalidMessage, stream_uid: row.streamUid };
      return { code: MessageSendCode.SentFailed, stream_uid: row.streamUid, error: { code: e.code, message: e.message } };
    }
  }

  /** `GET /stream/code_snippet?streamId=`: curl, Node, Python and PHP with the stream's real token and URL. */
  async codeSnippets(streamIdRaw: unknown): Promise<Record<string, unknown>> {
    const row = await this.streams.find(streamIdFrom(streamIdRaw));
    const { token } = await this.streams.token(row.id);
    const otp = row.streamType === StreamType.Otp;
    const url = `${this.o.publicApiUrl}/api/streams/${otp ? 'otp/request' : 'messages'}`;
    const body = otp ? { phone: '+14155552671' } : { phone: '+14155552671', message: 'Hello from Switchboard', ...(row.sender ? { sender: row.sender } : {}) };
    const json = JSON.stringify(body);
    const pretty = JSON.stringify(body, null, 2);
    const snippets: Record<string, unknown> = {
      streamId: Number(row.id),
      streamUid: row.streamUid,
      url,
      token,
      curl: `curl -X POST '${url}' \\\n  -H 'Authorization: ${token}' \\\n  -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: order-1234' \\\n  -d '${json}'`,
      node: `const res = await fetch('${url}', {\n  method: 'POST',\n  headers: { Authorization: '${token}', 'Content-Type': 'application/json' },\n  body: JSON.stringify(${pretty.replace(/\n/g, '\n  ')}),\n});\nconsole.log(res.status, await res.json());`,
      python: `import requests\n\nres = requests.post(\n    '${url}',\n    headers={'Authorization': '${token}'},\n    json=${pretty.replace(/\n/g, '\n    ')},\n    timeout=10,\n)\nprint(res.status_code, res.json())`,
      php: `<?php\n$ch = curl_init('${url}');\ncurl_setopt_array($ch, [\n    CURLOPT_POST => true,\n    CURLOPT_RETURNTRANSFER => true,\n    CURLOPT_HTTPHEADER => ['Authorization: ${token}', 'Content-Type: application/json'],\n    CURLOPT_POSTFIELDS => '${json}',\n]);\n$response = curl_exec($ch);\necho curl_getinfo($ch, CURLINFO_HTTP_CODE), ' ', $response;`,
    };
    if (otp) {
      const verify = `${this.o.publicApiUrl}/api/streams/otp/verify`;
      snippets.verifyUrl = verify;
      snippets.verifyCurl = `curl -X POST '${verify}' \\\n  -H 'Authorization: ${token}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"phone":"+14155552671","code":"12345"}'`;
    }
    return snippets;
  }

  /** `GET /stream/diagnostics?streamId=`: why a stream can or cannot send. */
  async diagnostics(streamIdRaw: unknown): Promise<{ streamId: number; ok: boolean; checks: DiagnosticCheck[] }> {
    const row = await this.streams.find(streamIdFrom(streamIdRaw));
    const accountId = RequestContext.accountId();
    const checks: DiagnosticCheck[] = [];
    const add = (key: string, ok: boolean, message: string) => checks.push({ key, ok, message });
    const status = row.status;
    add('stream_status', status === StreamStatus.Ready || status === StreamStatus.Sending, status === StreamStatus.Restricted ? 'restricted by a super administrator' : status === StreamStatus.Disabled ? 'disabled' : status === StreamStatus.Draft ? 'draft: not ready to send' : 'ready');
    add('sending_enabled', row.enableSending, row.enableSending ? 'sending is on' : 'sending is turned off');
    const secrets = this.streams.openSecrets(row);
    add('provider_settings', providerConfigured(row.streamType, row.params, secrets), providerConfigured(row.streamType, row.params, secrets) ? 'complete' : 'token, business id or phone number missing');
    const customer = await this.lookups.customer(accountId);
    add('account', Boolean(customer && customer.status === 'active' && customer.active === 1), customer ? `account ${customer.status}${customer.active === 1 ? '' : ', not approved'}` : 'account not known to streams yet');
    const setting = requiredSetting(row.streamType);
    if (setting) add('channel_allowed', Boolean(customer && truthy(customer.settings[setting])), `${setting} ${customer && truthy(customer.settings[setting]) ? 'on' : 'off'}`);
    add('tps', Boolean(customer && customer.tps > 0), customer && customer.tps > 0 ? `${customer.tps} messages a second` : 'no TPS set for the account');
    const [{ balance }] = await this.ds.query(`SELECT coalesce(sum(balance_micros), 0)::text AS balance FROM streams.balance_slot WHERE account_id = $1`, [accountId]);
    add('balance', Number(balance) > 0, `${(Number(balance) / 1_000_000).toFixed(2)} ${customer?.currency ?? ''}`.trim());
    if (channelOf(row.streamType) === 'sms' || row.streamType === StreamType.WhatsApp) {
      const [{ n }] = await this.ds.query(`SELECT count(DISTINCT iso2)::int AS n FROM streams.price WHERE (account_id = $1 OR account_id IS NULL) AND currency = $2`, [accountId, customer?.currency ?? '']);
      add('prices', n > 0 || this.o.defaultPriceMicros !== null, n > 0 ? `priced for ${n} countries` : this.o.defaultPriceMicros !== null ? 'default price for every country' : 'no prices: every send is refused');
    }
    if (channelOf(row.streamType) === 'sms') {
      if (!row.sender) add('sender', false, 'no default sender: each send must name one');
      else {
        const approved = await this.lookups.approvedSenders(accountId);
        const needs = Boolean(customer && truthy(customer.settings.streams_validate_senders));
        add('sender', !needs || approved.has(row.sender.toLowerCase()), needs && !approved.has(row.sender.toLowerCase()) ? `${row.sender} is not an approved sender` : `${row.sender}`);
      }
    }
    add('ip_acl', true, row.ipAcl.length === 0 ? 'any address' : `${row.ipAcl.length} entries${row.params.check_ip_acl === 0 ? ' (not enforced)' : ''}`);
    add('last_sent', true, row.lastSentTime ? row.lastSentTime.toISOString() : 'never');
    return { streamId: Number(row.id), ok: checks.every((c) => c.ok), checks };
  }

  /**
   * `GET /streams/webhooks/{id}`: where the provider calls dispatch for this stream's statuses and inbound messages
   * (docs/decisions/0013-dispatch.md, Integration). WhatsApp: the URL and verify token to enter in the Meta app;
   * Telegram bot: the URL dispatch registers with setWebhook itself. SMS and Telegram private have no webhook (SMPP
   * and MTProto deliver inbound messages), so both are null.
   */
  async webhooks(id: string): Promise<Record<string, unknown>> {
    const row = await this.streams.find(id);
    const channel = channelOf(row.streamType);
    const hooked = channel === 'whatsapp' || channel === 'telegram';
    return {
      streamId: Number(row.id),
      streamUid: row.streamUid,
      channel,
      callbackUrl: hooked ? `${this.o.publicApiUrl}/api/dispatch/webhooks/${channel}/${row.streamUid}` : null,
      verifyToken: channel === 'whatsapp' ? webhookVerifyToken(this.o.secret, row.streamUid) : null,
    };
  }

  previewWhatsApp(token: string, businessId: string) {
    return this.whatsapp.preview(token, businessId);
  }

  previewTelegram(token: string) {
    return this.telegram.getMe(token);
  }

  /** Spec 7: senders for a stream, as `{id, display_phone_number, verified_name}`. */
  async externalSenders(id: string): Promise<WhatsAppPhoneNumber[]> {
    const row = await this.streams.find(id);
    const s = this.streams.openSecrets(row);
    if (row.streamType === StreamType.WhatsApp) {
      if (!s.auth_token || !row.params.business_id) throw this.notConfigured();
      return this.whatsapp.phoneNumbers(s.auth_token, row.params.business_id);
    }
    if (row.streamType === StreamType.TelegramBot) {
      if (!s.auth_token) throw this.notConfigured();
      const me = await this.telegram.getMe(s.auth_token);
      return [{ id: String(me.id), display_phone_number: me.username ? `@${me.username}` : String(me.id), verified_name: me.first_name ?? '' }];
    }
    if (row.streamType === StreamType.TelegramPrivate) return row.params.phone_number ? [{ id: row.params.phone_number, display_phone_number: row.params.phone_number, verified_name: row.name }] : [];
    const rows: Array<{ id: string; value: string; name: string }> = await this.ds.query(
      `SELECT id::text, value, name FROM streams.sender WHERE account_id = $1 AND approved = 1 ORDER BY name, id`,
      [row.accountId],
    );
    return rows.map((r) => ({ id: r.id, display_phone_number: r.value, verified_name: r.name }));
  }

  async externalTemplates(id: string, query: Record<string, unknown>): Promise<{ items: unknown[]; total: number }> {
    const row = await this.streams.find(id);
    if (row.streamType !== StreamType.WhatsApp) return { items: [], total: 0 };
    return this.templates(row.id, query);
  }

  private async whatsappStream(id: string): Promise<{ token: string; businessId: string }> {
    const row = await this.streams.find(id);
    if (row.streamType !== StreamType.WhatsApp) throw new AppError(400, ErrorCode.InvalidArgument, 'not a WhatsApp stream');
    const s = this.streams.openSecrets(row);
    if (!s.auth_token || !row.params.business_id) throw this.notConfigured();
    return { token: s.auth_token, businessId: row.params.business_id };
  }

  async templates(id: string, query: Record<string, unknown>): Promise<{ items: unknown[]; total: number }> {
    const { token, businessId } = await this.whatsappStream(id);
    const pass: Record<string, string> = {};
    for (const k of ['name', 'status', 'language', 'category', 'limit', 'after', 'before']) if (typeof query[k] === 'string') pass[k] = query[k] as string;
    return this.whatsapp.templates(token, businessId, pass);
  }

  async createTemplate(id: string, body: Record<string, unknown>): Promise<unknown> {
    const violations: Violation[] = [];
    if (typeof body.name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(body.name)) violations.push({ propertyPath: 'name', message: 'name is lower case letters, digits and underscores' });
    if (typeof body.language !== 'string' || !body.language) violations.push({ propertyPath: 'language', message: 'language is required', code: 'required' });
    if (typeof body.category !== 'string' || !['MARKETING', 'UTILITY', 'AUTHENTICATION'].includes(body.category)) violations.push({ propertyPath: 'category', message: 'category is MARKETING, UTILITY or AUTHENTICATION' });
    if (!Array.isArray(body.components) || body.components.length === 0) violations.push({ propertyPath: 'components', message: 'components is a non-empty list', code: 'required' });
    if (violations.length) throw AppError.validation(violations);
    const { token, businessId } = await this.whatsappStream(id);
    return this.whatsapp.createTemplate(token, businessId, { name: body.name, language: body.language, category: body.category, components: body.components });
  }

  async deleteTemplate(id: string, name: unknown): Promise<unknown> {
    if (typeof name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(name)) throw AppError.validation([{ propertyPath: 'name', message: 'name of the template to delete', code: 'required' }]);
    const { token, businessId } = await this.whatsappStream(id);
    return this.whatsapp.deleteTemplate(token, businessId, name);
  }

  async flows(id: string): Promise<{ items: unknown[]; total: number }> {
    const { token, businessId } = await this.whatsappStream(id);
    return this.whatsapp.flows(token, businessId);
  }

  private notConfigured(): AppError {
    return new AppError(409, ErrorCode.StreamMissingForProvider, 'the stream has no provider token or business id yet');
  }
}
