import { Injectable } from '@nestjs/common';
import { AccountStatus } from '@switchboard/contracts';
import type { ListResult, Principal } from '@switchboard/platform';
import type { DropdownDataDto } from '../dtos/customer.dto';
import { currencySign } from '../rules/money';
import { FEATURES, GENERATIVE_SERVICES } from '../rules/settings';
import { AccountGate } from './account-gate.service';
import { CountryService } from './country.service';
import { CustomerService } from './customer.service';

/** Spec 3: dropdown option (key, text, value). */
export interface DropdownOption {
  key: string;
  text: string;
  value: string | number;
}

const options = (values: readonly string[], text: (v: string) => string = (v) => v): DropdownOption[] => values.map((v) => ({ key: v, text: text(v), value: v }));

/** POST /customers/get_dropdown_data {entity}: option lists for the account screens. */
@Injectable()
export class DropdownService {
  constructor(
    private readonly customers: CustomerService,
    private readonly countries: CountryService,
    private readonly gate: AccountGate,
  ) {}

  async data(p: Principal, dto: DropdownDataDto): Promise<ListResult<DropdownOption>> {
    await this.gate.currentIfAny(p);
    const search = dto.search?.trim() || undefined;
    const query = search ? { search } : {};
    let items: DropdownOption[];
    switch (dto.entity) {
      case 'customers':
        items = (await this.customers.dropdown(p, query)).items.map((c) => ({ key: String(c.id), text: c.name, value: c.id }));
        break;
      case 'countries':
        items = (await this.countries.list(p, query)).items.map((c) => ({ key: c.iso2, text: c.name, value: c.id }));
        break;
      case 'timezones':
        items = (await this.countries.timezones(p, query)).items.map((t) => ({ key: `${t.countryCode}:${t.name}`, text: `${t.name} (${t.countryCode})`, value: t.id }));
        break;
      case 'currencies':
        items = options(Intl.supportedValuesOf('currency'), (c) => `${c} (${currencySign(c)})`);
        break;
      case 'statuses':
        items = options(Object.values(AccountStatus));
        break;
      case 'generative_services':
        items = options(GENERATIVE_SERVICES);
        break;
      case 'features':
        items = options(FEATURES);
        break;
    }
    if (search && ['currencies', 'statuses', 'generative_services', 'features'].includes(dto.entity)) {
      items = items.filter((o) => o.text.toLowerCase().includes(search.toLowerCase()));
    }
    return { items, total: items.length };
  }
}
