import ContactPhoneOutlinedIcon from '@mui/icons-material/ContactPhoneOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { Autocomplete, Box, Chip, MenuItem, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import { CONTACTS_PER_PAGE, P } from '../constants';
import { useExport } from '../exports/useExport';
import { useLookups } from '../segments/lookups';
import type { Contact } from '../types';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { countryName, formatDate, formatNumber, fullName } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { KeysetPaginator } from '../widgets/KeysetPaginator';
import { PageHeading } from '../../../ui/PageHeading';
import { useApi } from '../../../ui/useApi';
import { useDebounced } from '../../../ui/useInterval';
import { usePageSize } from '../../../ui/table/useTable';
import { ContactPanel } from './ContactPanel';
import { ContactStatus } from './ContactStatus';
import { LoadErrorBanner, SearchField } from '../../../ui/table/TableToolbar';

type OptedOut = 'all' | 'active' | 'optedOut';

/**
 * Contacts of the account: search, list or segment, country and opt-out filters over a keyset-paged table (the API
 * pages by the last id seen); a row opens the contact in the side panel. Spec 9: contacts load 200 per page.
 */
export const ContactsPage = () => {
  const translate = useTranslate();
  const locale = translate('contacts.locale');
  const lookups = useLookups();
  const exporter = useExport();
  const [search, setSearch] = useState('');
  const term = useDebounced(search.trim(), 300);
  const [listId, setListId] = useState<number | null>(null);
  const [country, setCountry] = useState<string | null>(null);
  const [optedOut, setOptedOut] = useState<OptedOut>('all');
  const [perPage, setPerPage] = usePageSize('contacts', CONTACTS_PER_PAGE);
  /** cursors[i] is the `after` of page i + 1 (null for the first page). */
  const [cursors, setCursors] = useState<Array<number | null>>([null]);
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<number | null>(null);

  const filters = { search: term || undefined, contactList: listId ?? undefined, country: country ?? undefined, optedOut: optedOut === 'all' ? undefined : optedOut === 'optedOut' };
  const filterKey = JSON.stringify([filters, perPage]);
  useEffect(() => {
    setCursors([null]);
    setPage(1);
  }, [filterKey]);

  const after = cursors[page - 1] ?? null;
  const contacts = useApi(() => contactsApi.contacts({ ...filters, itemsPerPage: perPage, after }), [filterKey, after]);
  const next = contacts.data?.nextAfter ?? null;

  const goNext = () => {
    if (!next) return;
    setCursors((cs) => [...cs.slice(0, page), next]);
    setPage((p) => p + 1);
    window.scrollTo({ top: 0 });
  };
  const goPrevious = () => {
    setPage((p) => Math.max(1, p - 1));
    window.scrollTo({ top: 0 });
  };

  const allLists = [...(lookups?.lists ?? []), ...(lookups?.segments ?? [])];
  const columns: Column<Contact>[] = [
    {
      key: 'phone',
      label: translate('contacts.contacts.fields.phone'),
      render: (c) => (
        <Typography component="span" sx={{ fontFamily: 'ui-monospace, monospace', fontSize: 13.5, fontWeight: 600 }} data-testid="contact-phone">
          {c.normalizedPhone || c.phone}
        </Typography>
      ),
    },
    { key: 'name', label: translate('contacts.contacts.fields.name'), render: (c) => fullName(c) || <Typography color="text.secondary">—</Typography> },
    { key: 'email', hideOnPhone: true, label: translate('contacts.contacts.fields.email'), render: (c) => c.email || '—' },
    { key: 'country', hideOnPhone: true, label: translate('contacts.contacts.fields.country'), render: (c) => (c.country ? countryName(c.country, locale) : '—') },
    {
      key: 'lists', hideOnPhone: true,
      label: translate('contacts.contacts.lists'),
      render: (c) => (c.contactLists.length ? <Chip size="small" label={translate('contacts.contacts.listCount', { smart_count: c.contactLists.length })} /> : '—'),
    },
    { key: 'status', label: translate('contacts.contacts.fields.status'), render: (c) => <ContactStatus contact={c} /> },
    { key: 'createdAt', hideOnPhone: true, label: translate('contacts.contacts.fields.created'), render: (c) => formatDate(c.createdAt, locale) },
  ];

  const toolbar = (
    <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1.4fr 1.2fr 1fr 0.8fr' }, gap: 1.5, p: 2, borderBottom: 1, borderColor: 'divider' }}>
      <SearchField value={search} onChange={setSearch} placeholder={translate('contacts.contacts.search')} testId="contacts-search" />
      <Autocomplete
        size="small"
        options={allLists.map((l) => l.id)}
        value={listId}
        onChange={(_e, v) => setListId(v)}
        getOptionLabel={(id) => allLists.find((l) => l.id === id)?.name ?? `#${id}`}
        renderInput={(params) => <TextField {...params} placeholder={translate('contacts.contacts.anyList')} />}
      />
      <Autocomplete
        size="small"
        options={(lookups?.countries ?? []).map((c) => c.iso2)}
        value={country}
        onChange={(_e, v) => setCountry(v)}
        getOptionLabel={(iso) => countryName(iso, locale)}
        renderInput={(params) => <TextField {...params} placeholder={translate('contacts.contacts.anyCountry')} />}
      />
      <TextField select size="small" value={optedOut} onChange={(e) => setOptedOut(e.target.value as OptedOut)}>
        <MenuItem value="all">{translate('contacts.contacts.optedOutFilter.all')}</MenuItem>
        <MenuItem value="active">{translate('contacts.contacts.optedOutFilter.active')}</MenuItem>
        <MenuItem value="optedOut">{translate('contacts.contacts.optedOutFilter.optedOut')}</MenuItem>
      </TextField>
    </Box>
  );

  const rows = contacts.data?.items ?? [];
  return (
    <Box>
      <PageHeading
        title={translate('contacts.contacts.title')}
        subtitle={contacts.data ? translate('contacts.contacts.subtitleCount', { count: formatNumber(contacts.data.total, locale), smart_count: contacts.data.total }) : translate('contacts.contacts.subtitle')}
        icon={<ContactPhoneOutlinedIcon />}
        actions={
          <GatedButton
            permission={P.ListExport}
            variant="outlined"
            startIcon={<FileDownloadOutlinedIcon />}
            disabled={exporter.busy || !contacts.data?.total}
            onClick={() => void exporter.run({ contactList: filters.contactList, search: filters.search, country: filters.country, optedOut: filters.optedOut })}
          >
            {translate('contacts.actions.exportCsv')}
          </GatedButton>
        }
      />
      <LoadErrorBanner message={contacts.error != null ? errorText(contacts.error, translate) : null} />
      <DataTable
        testId="contacts-table"
        rowTestId="contact-row"
        columns={columns}
        rows={rows}
        rowKey={(c) => c.id}
        loading={contacts.loading}
        toolbar={toolbar}
        onRowClick={(c) => setOpenId(c.id)}
        empty={<NoResults title={translate('contacts.contacts.empty')} text={translate('contacts.contacts.emptyText')} />}
        footer={
          (contacts.data?.total ?? 0) > 0 && (
            <KeysetPaginator
              page={page}
              perPage={perPage}
              shown={rows.length}
              total={contacts.data?.total ?? 0}
              hasNext={!!next}
              onPrevious={goPrevious}
              onNext={goNext}
              onPerPageChange={setPerPage}
              extraSize={CONTACTS_PER_PAGE}
            />
          )
        }
      />
      <ContactPanel contactId={openId} lookups={lookups} onClose={() => setOpenId(null)} onChanged={() => void contacts.reload()} />
    </Box>
  );
};
