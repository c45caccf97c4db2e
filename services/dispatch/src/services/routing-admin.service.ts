import { Injectable } from '@nestjs/common';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import type { CountryRouteDto, CreateVendorDto, CustomerCountryRouteDto, UpdateChannelDto, UpdateVendorDto } from '../dtos/routing.dto';
import type { ServiceType, VendorRow } from '../dispatch.options';
import { MessageRepository, type OverdueRow } from '../repositories/message.repository';
import { RoutingRepository, type ChannelRow, type CountryRouteRow, type RoutingHistoryRow } from '../repositories/routing.repository';
import { RoutingService } from './routing.service';
import type { VendorDto, ChannelDto } from '@switchboard/contracts';

export type { VendorDto, ChannelDto };



const SECRET = /password|secret|token|hash/i;

/** How long a vendor's receipts may take before a message waiting for one is listed as overdue, unless its config says (`receiptOverdueMs`). */
export const DEFAULT_RECEIPT_OVERDUE_MS = 3_600_000;

/** GET /service_type_manager/awaiting_receipts: sent messages past their vendor's receipt limit, and a summary per vendor. */
export interface AwaitingReceipts {
  items: Array<{
    id: string;
    uuid: string;
    accountId: string;
    vendorId: string;
    vendor: string;
    destination: string;
    providerIds: string[];
    sentAt: string;
    waitingSeconds: number;
  }>;
  total: number;
  vendors: Array<{ vendorId: string; vendor: string; receiptOverdueMs: number; overdue: number; oldestSentAt: string }>;
}

export function overdueLimit(v: VendorRow): number {
  const ms = Number((v.config ?? {}).receiptOverdueMs);
  return Number.isFinite(ms) && ms > 0 ? ms : DEFAULT_RECEIPT_OVERDUE_MS;
}

function vendorDto(v: VendorRow): VendorDto {
  const config: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v.config ?? {})) config[k] = SECRET.test(k) ? '********' : val;
  return {
    id: Number(v.id),
    name: v.name,
    service_type: v.serviceType,
    carrier: v.carrier,
    product_name: v.productName,
    product_id: v.productId,
    active: v.active,
    currency: v.currency,
    adapter: v.adapter,
    config,
  };
}

function channelDto(c: ChannelRow): ChannelDto {
  return { id: Number(c.id), name: c.name, active: c.active, stsMethods: c.stsMethods, routingProvider: Number(c.routingProvider) };
}

function actor(p: Principal): string {
  return p.email ?? p.userId ?? 'system';
}

/** Super-admin management of vendors, channels and routes (/api/service_type_manager, /api/channels). */
@Injectable()
export class RoutingAdminService {
  constructor(
    private readonly repo: RoutingRepository,
    private readonly routing: RoutingService,
    private readonly messages: MessageRepository,
  ) {}

  /**
   * Messages sent and still waiting for their receipt past their vendor's limit (`receiptOverdueMs` in the vendor's
   * config, default 1 h), oldest first, with a count per vendor: a carrier that stopped reporting, or reports ids
   * nothing matches, shows here long before the receipt timeout ends those messages as undelivered.
   */
  async awaitingReceipts(query: Record<string, unknown>): Promise<AwaitingReceipts> {
    const { skip, take } = parseListQuery(query, { sortable: ['sentAt'], defaultOrder: { sentAt: 'ASC' } });
    if (query.vendorId !== undefined && (typeof query.vendorId !== 'string' || !/^\d{1,18}$/.test(query.vendorId))) {
      throw AppError.validation([{ propertyPath: 'vendorId', message: 'vendorId must be a decimal id' }]);
    }
    const vendors = (await this.repo.vendors()).filter((v) => query.vendorId === undefined || String(v.id) === query.vendorId);
    const byId = new Map(vendors.map((v) => [String(v.id), v]));
    const found = await this.messages.overdue(vendors.map((v) => ({ vendorId: String(v.id), ms: overdueLimit(v) })), skip, take);
    const name = (id: string) => byId.get(String(id))?.name ?? '';
    return {
      items: found.items.map((r: OverdueRow) => ({
        id: String(r.id),
        uuid: r.uuid,
        accountId: String(r.account_id),
        vendorId: String(r.vendor_id),
        vendor: name(r.vendor_id),
        destination: r.destination,
        providerIds: r.provider_ids ?? [],
        sentAt: r.sent_at,
        waitingSeconds: Number(r.waiting_seconds),
      })),
      total: found.vendors.reduce((n, v) => n + Number(v.overdue), 0),
      vendors: found.vendors.map((v) => ({
        vendorId: String(v.vendor_id),
        vendor: name(v.vendor_id),
        receiptOverdueMs: overdueLimit(byId.get(String(v.vendor_id))!),
        overdue: Number(v.overdue),
        oldestSentAt: v.oldest_sent_at,
      })),
    };
  }

  async vendors(): Promise<ListResult<VendorDto>> {
    const rows = await this.repo.vendors();
    return { items: rows.map(vendorDto), total: rows.length };
  }

  async vendor(id: string): Promise<VendorDto> {
    const v = /^\d{1,18}$/.test(id) ? await this.repo.vendor(id) : null;
    if (!v) throw AppError.notFound('vendor');
    return vendorDto(v);
  }

  async createVendor(dto: CreateVendorDto): Promise<VendorDto> {
    const created = await this.repo.ds.transaction(async (m) => {
      const v = await this.repo.insertVendor(m, {
        name: dto.name,
        serviceType: dto.service_type,
        adapter: dto.adapter,
        config: dto.config ?? {},
        carrier: dto.carrier ?? '',
        productName: dto.product_name ?? '',
        productId: dto.product_id ?? '',
        currency: dto.currency ?? 'EUR',
        active: dto.active ?? true,
      });
      if (!v) throw AppError.conflict(`a vendor named ${dto.name} exists`);
      await this.repo.syncChannels(m, dto.routingProvider ?? 1);
      return v;
    });
    await this.routing.refresh();
    return vendorDto(created);
  }

  async updateVendor(id: string, dto: UpdateVendorDto): Promise<VendorDto> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('vendor');
    const v = await this.repo.updateVendor(id, {
      name: dto.name,
      config: dto.config,
      carrier: dto.carrier,
      productName: dto.product_name,
      productId: dto.product_id,
      currency: dto.currency,
      active: dto.active,
    });
    if (!v) throw AppError.notFound('vendor');
    await this.repo.syncChannels();
    await this.routing.refresh();
    return vendorDto(v);
  }

  async channels(): Promise<ListResult<ChannelDto>> {
    const rows = await this.repo.channels();
    return { items: rows.map(channelDto), total: rows.length };
  }

  async updateChannel(id: string, dto: UpdateChannelDto): Promise<ChannelDto> {
    const c = /^\d{1,18}$/.test(id) ? await this.repo.updateChannel(id, dto) : null;
    if (!c) throw AppError.notFound('channel');
    await this.routing.refresh();
    return channelDto(c);
  }

  async syncChannels(): Promise<{ created: number }> {
    const created = await this.repo.syncChannels();
    await this.routing.refresh();
    return { created };
  }

  async globalRoutes(): Promise<ListResult<CountryRouteRow>> {
    const items = await this.repo.routes(null);
    return { items, total: items.length };
  }

  async customerRoutes(customerId: unknown): Promise<ListResult<CountryRouteRow>> {
    if (typeof customerId !== 'string' || !/^\d{1,18}$/.test(customerId)) throw AppError.validation([{ propertyPath: 'customerId', message: 'customerId must be a decimal id' }]);
    const items = await this.repo.routes(customerId);
    return { items, total: items.length };
  }

  private async checkVendors(ids: string[], serviceType: ServiceType): Promise<void> {
    const vendors = new Map((await this.repo.vendors()).map((v) => [String(v.id), v]));
    const bad = ids.filter((id) => vendors.get(id)?.serviceType !== serviceType);
    if (bad.length) throw AppError.validation([{ propertyPath: 'vendorIds', message: `not ${serviceType} vendors: ${bad.join(', ')}` }]);
  }

  async setGlobalRoute(dto: CountryRouteDto, p: Principal): Promise<CountryRouteRow | null> {
    await this.checkVendors(dto.vendorIds, dto.serviceType);
    const row = await this.repo.setRoute(null, dto.iso2.toUpperCase(), dto.serviceType, dto.vendorIds, actor(p));
    await this.routing.refresh();
    return row;
  }

  async setCustomerRoute(dto: CustomerCountryRouteDto, p: Principal): Promise<CountryRouteRow | null> {
    await this.checkVendors(dto.vendorIds, dto.serviceType);
    const row = await this.repo.setRoute(dto.customerId, dto.iso2.toUpperCase(), dto.serviceType, dto.vendorIds, actor(p));
    await this.routing.refresh();
    return row;
  }

  async refresh(): Promise<{ refreshed: true; vendors: number }> {
    await this.routing.refresh();
    return { refreshed: true, vendors: this.routing.vendorList().length };
  }

  /** How a message of this customer to this country would be routed now. */
  currentRouting(query: Record<string, unknown>): { iso2: string | null; serviceType: string; source: string; vendors: VendorDto[] } {
    const customerId = typeof query.customerId === 'string' && /^\d{1,18}$/.test(query.customerId) ? query.customerId : '0';
    const iso2 = typeof query.iso2 === 'string' && /^[A-Za-z]{2}$/.test(query.iso2) ? query.iso2.toUpperCase() : null;
    const serviceType = typeof query.serviceType === 'string' ? query.serviceType : 'sms';
    if (!['sms', 'whatsapp', 'telegram', 'telegram_private'].includes(serviceType)) {
      throw AppError.validation([{ propertyPath: 'serviceType', message: 'serviceType must be sms, whatsapp, telegram or telegram_private' }]);
    }
    if (!iso2 && query.iso2 !== undefined) throw AppError.validation([{ propertyPath: 'iso2', message: 'iso2 must be a 2-letter country code' }]);
    const choice = this.routing.resolve(customerId, serviceType, '', iso2);
    return {
      iso2: choice.iso2,
      serviceType,
      source: choice.source,
      vendors: choice.vendorIds.map((id) => this.routing.vendor(id)).filter((v): v is VendorRow => !!v).map(vendorDto),
    };
  }

  async history(query: Record<string, unknown>): Promise<ListResult<RoutingHistoryRow>> {
    const { skip, take } = parseListQuery(query, { sortable: ['id'] });
    const customerId = typeof query.customerId === 'string' && /^\d{1,18}$/.test(query.customerId) ? query.customerId : undefined;
    const iso2 = typeof query.iso2 === 'string' && /^[A-Za-z]{2}$/.test(query.iso2) ? query.iso2.toUpperCase() : undefined;
    return this.repo.history({ accountId: customerId, iso2 }, skip, take);
  }
}
