import AddLinkRoundedIcon from '@mui/icons-material/AddLinkRounded';
import AddRoundedIcon from '@mui/icons-material/AddRounded';
import { Box, Button, Checkbox, FormControlLabel, ListItemText, MenuItem, Paper, Radio, RadioGroup, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { GatedButton } from '../../../../ui/Gated';
import { useApi } from '../../../../ui/useApi';
import { linksApi, P } from '../../../links/api';
import { CampaignAddDomainDialog, DnsInstructionsModal } from '../../../links/DomainDialogs';
import { OfferDialog } from '../../../links/OffersPage';
import type { Domain, DomainOption, DomainPoolOption, OfferOption } from '../../../links/types';
import { emptyLinkRow, type LinkName, type LinkRow } from '../model';

interface LinkLookups {
  offers: OfferOption[];
  domains: DomainOption[];
  pools: DomainPoolOption[];
}

const none = <T,>() => ({ items: [] as T[], total: 0 });

/**
 * Where a link variable's personal links go (spec 3 params): the offer ({{shorturl}}), the domains or a pool, and the
 * days after which a link expires. "Add domain" (spec 7 `campaigns/add/domain`) adds domains into an existing or a
 * new pool, selects that pool here and shows the DNS instructions for the new domains. "Add offer" opens the Offers
 * page's dialog here and selects the new offer.
 */
export const LinksPanel = ({ names, rows, errors, onChange, disabled }: { names: LinkName[]; rows: LinkRow[]; errors: Record<string, string>; onChange: (row: LinkRow) => void; disabled?: boolean }) => {
  const translate = useTranslate();
  const [adding, setAdding] = useState<LinkName | null>(null);
  const [dns, setDns] = useState<Domain[] | null>(null);
  const [addingOffer, setAddingOffer] = useState(false);
  const lookups = useApi<LinkLookups>(
    async () => {
      const [offers, domains, pools] = await Promise.all([
        linksApi.offersDropdown().catch(none<OfferOption>),
        linksApi.domainsDropdown().catch(none<DomainOption>),
        linksApi.poolsDropdown().catch(none<DomainPoolOption>),
      ]);
      return { offers: offers.items, domains: domains.items, pools: pools.items };
    },
    [],
    names.length > 0,
  );
  if (!names.length) return null;
  const data = lookups.data ?? { offers: [], domains: [], pools: [] };

  return (
    <Paper variant="outlined" sx={{ p: 2, display: 'grid', gap: 2 }} data-testid="campaign-links">
      <Box>
        <Typography variant="subtitle2">{translate('campaigns.message.links.title')}</Typography>
        <Typography variant="caption" color="text.secondary">{translate('campaigns.message.links.hint')}</Typography>
      </Box>
      {names.map((name) => {
        const r = rows.find((x) => x.name === name) ?? emptyLinkRow(name);
        const change = (patch: Partial<LinkRow>) => onChange({ ...r, ...patch });
        const err = (k: string) => errors[`links.${name}.${k}`];
        return (
          <Box key={name} sx={{ display: 'grid', gap: 1.5 }} data-testid={`campaign-link-${name}`}>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {translate(`campaigns.message.special.${name}`)} <Typography component="span" variant="caption" color="text.secondary">{`{{${name}}}`}</Typography>
            </Typography>
            {name === 'shorturl' && (
              <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1 }}>
              <TextField
                select
                size="small"
                sx={{ flex: 1 }}
                label={translate('campaigns.message.links.offer')}
                value={r.offer === '' ? '' : String(r.offer)}
                disabled={disabled}
                onChange={(e) => change({ offer: e.target.value === '' ? '' : Number(e.target.value) })}
                error={!!err('offer')}
                helperText={err('offer') || (data.offers.length ? ' ' : translate('campaigns.message.links.noOffers'))}
                slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'link-offer' } as object } }}
              >
                {data.offers.map((o) => (
                  <MenuItem key={o.id} value={String(o.id)} data-testid={`link-offer-option-${o.id}`}>
                    <ListItemText primary={o.name} secondary={o.originalUrl} />
                  </MenuItem>
                ))}
              </TextField>
              <GatedButton permission={P.UrlOfferAddEdit} size="small" startIcon={<AddRoundedIcon />} onClick={() => setAddingOffer(true)} disabled={disabled} sx={{ mt: 0.5, flexShrink: 0 }} data-testid="link-add-offer">
                {translate('campaigns.message.links.addOffer')}
              </GatedButton>
              </Box>
            )}
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
              <Typography variant="body2" color="text.secondary">{translate('campaigns.message.links.source')}</Typography>
              <RadioGroup row value={r.source} onChange={(e) => change({ source: e.target.value === 'pool' ? 'pool' : 'domains' })}>
                <FormControlLabel value="domains" control={<Radio size="small" />} label={translate('campaigns.message.links.domains')} disabled={disabled} data-testid="link-source-domains" />
                <FormControlLabel value="pool" control={<Radio size="small" />} label={translate('campaigns.message.links.pool')} disabled={disabled} data-testid="link-source-pool" />
              </RadioGroup>
              <Button size="small" startIcon={<AddLinkRoundedIcon />} onClick={() => setAdding(name)} disabled={disabled} data-testid="link-add-domain">
                {translate('campaigns.message.links.addDomain')}
              </Button>
            </Box>
            {r.source === 'domains' ? (
              <TextField
                select
                size="small"
                label={translate('campaigns.message.links.domains')}
                value={r.domains.map(String)}
                disabled={disabled}
                onChange={(e) => {
                  const v = e.target.value as unknown as string[] | string;
                  change({ domains: (Array.isArray(v) ? v : v.split(',')).filter(Boolean).map(Number) });
                }}
                error={!!err('domains')}
                helperText={err('domains') || ' '}
                slotProps={{
                  select: {
                    multiple: true,
                    renderValue: (v) => (v as string[]).map((id) => data.domains.find((d) => String(d.id) === id)?.name ?? `#${id}`).join(', '),
                    SelectDisplayProps: { 'data-testid': 'link-domains' } as object,
                  },
                }}
              >
                {data.domains.map((d) => (
                  <MenuItem key={d.id} value={String(d.id)} data-testid="link-domain-option">
                    <Checkbox size="small" checked={r.domains.includes(d.id)} />
                    <ListItemText primary={d.name} />
                  </MenuItem>
                ))}
              </TextField>
            ) : (
              <TextField
                select
                size="small"
                label={translate('campaigns.message.links.pool')}
                value={r.pool === '' ? '' : String(r.pool)}
                disabled={disabled}
                onChange={(e) => change({ pool: e.target.value === '' ? '' : Number(e.target.value) })}
                error={!!err('pool')}
                helperText={err('pool') || ' '}
                slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'link-pool' } as object } }}
              >
                {data.pools.map((p) => (
                  <MenuItem key={p.id} value={String(p.id)} data-testid={`link-pool-option-${p.id}`}>
                    {p.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <TextField
              size="small"
              label={translate('campaigns.message.links.expired')}
              value={r.expired}
              disabled={disabled}
              onChange={(e) => change({ expired: e.target.value.replace(/[^\d]/g, '').slice(0, 5) })}
              error={!!err('expired')}
              helperText={err('expired') || translate('campaigns.message.links.expiredHelp')}
              slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'link-expired' } }}
              sx={{ maxWidth: 260 }}
            />
          </Box>
        );
      })}
      <CampaignAddDomainDialog
        open={adding !== null}
        pools={data.pools}
        onClose={() => setAdding(null)}
        onAdded={(answer) => {
          const name = adding;
          setAdding(null);
          void lookups.refresh();
          // the new domains' pool becomes where this variable's links go
          if (name && answer.pool) onChange({ ...(rows.find((x) => x.name === name) ?? emptyLinkRow(name)), source: 'pool', pool: answer.pool.id });
          setDns(answer.data);
        }}
      />
      <DnsInstructionsModal domains={dns} onClose={() => setDns(null)} />
      <OfferDialog
        open={addingOffer}
        offer={null}
        onClose={() => setAddingOffer(false)}
        onSaved={(offer) => {
          setAddingOffer(false);
          void lookups.refresh();
          // the new offer becomes the short URL's offer
          onChange({ ...(rows.find((x) => x.name === 'shorturl') ?? emptyLinkRow('shorturl')), offer: offer.id });
        }}
      />
    </Paper>
  );
};
