import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import LocalOfferRoundedIcon from '@mui/icons-material/LocalOfferRounded';
import { Alert, Box, FormControlLabel, MenuItem, Switch, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { GatedButton, GatedIconButton } from '../../ui/Gated';
import { ConfirmDialog } from '../../ui/modal/ConfirmDialog';
import { FormDialog } from '../../ui/modal/FormDialog';
import { PageHeading } from '../../ui/PageHeading';
import { useCan } from '../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { useClientTable } from '../../ui/table/useTable';
import { useApi } from '../../ui/useApi';
import { formatDate } from '../contacts/widgets/format';
import { linksApi, P } from './api';
import { OFFER_EXPIRE_METHODS, type Offer, type OfferExpireMethod } from './types';
import { mono, OfferStateChip } from './widgets';

const errText = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : String(e));

/**
 * Spec 2: add or edit offer: name, original URL (recipient variables allowed), expiry in days and method, description,
 * enabled. The Offers page and the campaign wizard's link step (its "Add offer") open it; `onSaved` gets the saved offer.
 */
export const OfferDialog = ({ open, offer, onClose, onSaved }: { open: boolean; offer: Offer | null; onClose: () => void; onSaved: (saved: Offer) => void }) => {
  const translate = useTranslate();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [days, setDays] = useState('');
  const [method, setMethod] = useState<OfferExpireMethod>('offer_creation');
  const [description, setDescription] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!open) return;
    setName(offer?.name ?? '');
    setUrl(offer?.originalUrl ?? '');
    setDays(offer?.expireInDays ? String(offer.expireInDays) : '');
    setMethod(offer?.expireMethod ?? 'offer_creation');
    setDescription(offer?.description ?? '');
    setEnabled(!offer?.disabled);
    setError(null);
    setErrors({});
  }, [open, offer]);
  const submit = () => {
    const local: Record<string, string> = {};
    if (!name.trim()) local.name = translate('errors.client.required', { _: 'Required' });
    if (!url.trim()) local.originalUrl = translate('errors.client.required', { _: 'Required' });
    if (days.trim() && !/^\d+$/.test(days.trim())) local.expireInDays = translate('errors.client.onlyPositive', { _: 'Positive numbers only' });
    if (method !== 'never' && !days.trim()) local.expireInDays = translate('errors.client.required', { _: 'Required' });
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const body = { name: name.trim(), originalUrl: url.trim(), expireInDays: method === 'never' ? null : Number(days), expireMethod: method, description, disabled: !enabled };
    void (offer ? linksApi.updateOffer(offer.id, body) : linksApi.createOffer(body)).then(
      (saved) => {
        setBusy(false);
        onSaved(saved);
      },
      (e: unknown) => {
        setBusy(false);
        const fields: Record<string, string> = {};
        if (isApiError(e) && e.status === 400) for (const x of e.body?.violations ?? []) fields[x.propertyPath.split('.')[0]] ??= x.message;
        setErrors(fields);
        setError(Object.keys(fields).length ? null : errText(e));
      },
    );
  };
  return (
    <FormDialog open={open} onClose={onClose} size="m" title={translate(offer ? 'links.offers.editTitle' : 'links.offers.createTitle')} testId="offer-dialog" busy={busy} error={error} submitLabel={translate('links.actions.save')} submitTestId="offer-save" onSubmit={submit}>
      <Box sx={{ display: 'grid', gap: 2 }}>
        <TextField label={translate('links.fields.offerName')} value={name} onChange={(e) => setName(e.target.value)} error={!!errors.name} helperText={errors.name ?? ' '} slotProps={{ htmlInput: { 'data-testid': 'offer-name' } }} />
        <TextField
          label={translate('links.fields.originalUrl')}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={!!errors.originalUrl}
          helperText={errors.originalUrl ?? translate('links.offers.urlHelp')}
          slotProps={{ htmlInput: { 'data-testid': 'offer-url', style: mono } }}
        />
        <Box sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 2 }}>
          <TextField select label={translate('links.fields.expireMethod')} value={method} onChange={(e) => setMethod(e.target.value as OfferExpireMethod)}>
            {OFFER_EXPIRE_METHODS.map((m) => <MenuItem key={m} value={m}>{translate(`links.expireMethods.${m}`)}</MenuItem>)}
          </TextField>
          <TextField label={translate('links.fields.expireInDays')} value={method === 'never' ? '' : days} disabled={method === 'never'} onChange={(e) => setDays(e.target.value)} error={!!errors.expireInDays} helperText={errors.expireInDays ?? translate('links.offers.daysHelp')} slotProps={{ htmlInput: { 'data-testid': 'offer-days', inputMode: 'numeric' } }} />
        </Box>
        <TextField label={translate('links.fields.description')} value={description} onChange={(e) => setDescription(e.target.value)} multiline minRows={2} />
        <FormControlLabel control={<Switch checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />} label={translate('links.offers.enabled')} />
      </Box>
    </FormDialog>
  );
};

/** /offers: short-link offers with their state chips (spec 3, 4): active, about to expire, expired, disabled. */
export const OffersPage = () => {
  const translate = useTranslate();
  const locale = translate('links.locale');
  const notify = useNotify();
  const can = useCan();
  const allowed = can(P.UrlOfferView);
  const list = useApi(() => linksApi.offers(), [], allowed);
  const [dialog, setDialog] = useState<{ offer: Offer | null } | null>(null);
  const [removing, setRemoving] = useState<Offer | null>(null);
  const columns: Column<Offer>[] = [
    { key: 'name', label: translate('links.fields.offerName'), sortable: true, sortValue: (o) => o.name.toLowerCase(), render: (o) => <Typography sx={{ fontWeight: 600 }} data-testid="offer-row-name">{o.name}</Typography> },
    {
      key: 'originalUrl',
      label: translate('links.fields.originalUrl'),
      render: (o) => (
        <Tooltip title={o.originalUrl}>
          <Typography sx={{ ...mono, maxWidth: 380 }} noWrap>{o.originalUrl}</Typography>
        </Tooltip>
      ),
    },
    { key: 'state', label: translate('links.fields.state'), sortable: true, sortValue: (o) => o.state, render: (o) => <OfferStateChip state={o.state} /> },
    { key: 'expireInDays', label: translate('links.fields.expires'), hideOnPhone: true, render: (o) => (o.expiresAt ? formatDate(o.expiresAt, locale, false) : o.expireMethod === 'link_creation' ? translate('links.offers.perLink', { days: o.expireInDays ?? 0 }) : '—') },
    { key: 'createdAt', label: translate('links.fields.createdAt'), sortable: true, sortValue: (o) => o.createdAt, hideOnPhone: true, render: (o) => <span data-testid="offer-row-created">{formatDate(o.createdAt, locale)}</span> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      render: (o) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.UrlOfferAddEdit} title={translate('links.actions.edit')} onClick={() => setDialog({ offer: o })} data-testid="offer-edit">
            <EditRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.UrlOfferRemove} title={translate('links.actions.delete')} onClick={() => setRemoving(o)} data-testid="offer-delete">
            <DeleteOutlineRoundedIcon fontSize="small" />
          </GatedIconButton>
        </Box>
      ),
    },
  ];
  const table = useClientTable(list.data?.items ?? [], columns, 'offers', { field: 'createdAt', order: 'desc' });
  if (!allowed) {
    return (
      <Box>
        <PageHeading title={translate('links.offers.title')} icon={<LocalOfferRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.UrlOfferView })}</Alert>
      </Box>
    );
  }
  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="offers-page">
      <PageHeading
        title={translate('links.offers.title')}
        subtitle={translate('links.offers.subtitle')}
        icon={<LocalOfferRoundedIcon />}
        actions={
          <GatedButton permission={P.UrlOfferAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ offer: null })} data-testid="new-offer">
            {translate('links.offers.create')}
          </GatedButton>
        }
      />
      {list.error ? <Alert severity="error" sx={{ mb: 2 }}>{errText(list.error)}</Alert> : null}
      <DataTable
        testId="offers-table"
        rowTestId="offer-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(o) => o.id}
        loading={list.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate('links.offers.empty')} text={translate('links.offers.emptyText')} />}
      />
      <OfferDialog open={!!dialog} offer={dialog?.offer ?? null} onClose={() => setDialog(null)} onSaved={() => { setDialog(null); notify('links.notify.saved', { type: 'success' }); void list.refresh(); }} />
      <ConfirmDialog
        open={!!removing}
        danger
        title={translate('links.offers.deleteTitle')}
        text={translate('links.offers.deleteText', { name: removing?.name ?? '' })}
        onConfirm={() => {
          const o = removing;
          setRemoving(null);
          if (o) void linksApi.removeOffer(o.id).then(() => list.refresh(), (e: unknown) => notify(errText(e), { type: 'error' }));
        }}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
};
