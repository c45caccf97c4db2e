import { apiFetch } from '../../../providers/http';
import { useApi } from '../../../ui/useApi';
import type { ContactList, Variable } from '../../contacts/types';
import type { SenderOption, StreamDropdownItem } from '../../streams/types';
import { campaignsApi, DROPDOWN_PER_PAGE } from '../api';
import type { ListResult, Tag, Template, WordList } from '../types';

export interface TimezoneOption {
  id: number;
  name: string;
  countryCode: string;
}

export interface Lookups {
  streams: StreamDropdownItem[];
  senders: SenderOption[];
  lists: ContactList[];
  tags: Tag[];
  variables: Variable[];
  timezones: TimezoneOption[];
  templates: Template[];
  wordLists: WordList[];
}

const none = <T>(): Promise<ListResult<T>> => Promise.resolve({ items: [], total: 0 });

/**
 * What the wizard picks from, loaded once it opens: streams, senders, lists and segments, tags, contact variables,
 * time zones and templates. A source the user may not read (403) is an empty list, not a broken wizard.
 */
export function useLookups(open: boolean) {
  return useApi<Lookups>(
    async () => {
      const [streams, senders, lists, tags, variables, timezones, templates, wordLists] = await Promise.all([
        apiFetch<ListResult<StreamDropdownItem>>('/streams/dropdown').catch(none<StreamDropdownItem>),
        apiFetch<ListResult<SenderOption>>('/senders/dropdown').catch(none<SenderOption>),
        apiFetch<ListResult<ContactList>>(`/contact_lists?page=1&itemsPerPage=${DROPDOWN_PER_PAGE}&order[id]=desc`).catch(none<ContactList>),
        campaignsApi.tags().catch(none<Tag>),
        apiFetch<ListResult<Variable>>('/variables?page=1&itemsPerPage=500&order[id]=asc').catch(none<Variable>),
        apiFetch<ListResult<TimezoneOption>>('/timezones?page=1&itemsPerPage=1000&order[name]=asc').catch(none<TimezoneOption>),
        campaignsApi.templates().catch(none<Template>),
        campaignsApi.wordLists().catch(none<WordList>),
      ]);
      const seen = new Set<string>();
      return {
        streams: streams.items,
        senders: senders.items,
        lists: lists.items.filter((l) => !l.isDeleted),
        tags: tags.items,
        variables: variables.items.filter((v) => !v.hidden),
        timezones: timezones.items.filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true))),
        templates: templates.items,
        wordLists: wordLists.items,
      };
    },
    [open],
    open,
  );
}
