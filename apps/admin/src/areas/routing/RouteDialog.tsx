import AddRoundedIcon from '@mui/icons-material/AddRounded';
import AltRouteRoundedIcon from '@mui/icons-material/AltRouteRounded';
import ArrowDownwardRoundedIcon from '@mui/icons-material/ArrowDownwardRounded';
import ArrowUpwardRoundedIcon from '@mui/icons-material/ArrowUpwardRounded';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import { Autocomplete, Box, Button, IconButton, MenuItem, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { FormDialog } from '../../ui/modal/FormDialog';
import { errorText } from '../streams/widgets/errors';
import { MAX_ROUTE_VENDORS } from './constants';
import type { Country, Vendor } from './types';

interface Props {
  open: boolean;
  /** The country being edited; null: a new route, the country is chosen here. */
  iso2: string | null;
  initial: string[];
  serviceType: string;
  scopeLabel: string;
  countries: Country[];
  /** Countries that already have a route (not offered for a new one). */
  taken: Set<string>;
  vendors: Vendor[];
  onClose: () => void;
  onSave: (iso2: string, vendorIds: string[]) => Promise<void>;
}

/** A country route: up to four vendors of the service type, in failover order. */
export const RouteDialog = ({ open, iso2, initial, serviceType, scopeLabel, countries, taken, vendors, onClose, onSave }: Props) => {
  const translate = useTranslate();
  const [country, setCountry] = useState<Country | null>(null);
  const [ids, setIds] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    setCountry(iso2 ? countries.find((c) => c.iso2 === iso2) ?? { id: 0, name: iso2, iso2 } : null);
    setIds(initial);
    setError(null);
  }, [open, iso2, initial, countries]);

  const byId = new Map(vendors.map((v) => [String(v.id), v]));
  const available = vendors.filter((v) => v.service_type === serviceType && !ids.includes(String(v.id)));
  const move = (i: number, d: -1 | 1) => setIds((xs) => {
    const out = [...xs];
    [out[i], out[i + d]] = [out[i + d], out[i]];
    return out;
  });

  const save = async (vendorIds: string[]) => {
    if (!country) {
      setError(translate('routing.routes.countryRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSave(country.iso2, vendorIds);
    } catch (e) {
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="m"
      icon={<AltRouteRoundedIcon fontSize="small" />}
      title={translate(iso2 ? 'routing.routes.editTitle' : 'routing.routes.addTitle')}
      subtitle={`${scopeLabel} · ${translate(`routing.serviceTypes.${serviceType}`)}`}
      testId="route-dialog"
      busy={busy}
      submitLabel={translate('streams.ui.save')}
      submitTestId="route-save"
      submitDisabled={ids.length === 0}
      onSubmit={() => void save(ids)}
      error={error}
      extraActions={
        iso2 &&
        initial.length > 0 && (
          <Button color="error" onClick={() => void save([])} disabled={busy} sx={{ mr: 'auto' }} data-testid="route-remove">
            {translate('routing.routes.remove')}
          </Button>
        )
      }
    >
      <Autocomplete
        options={countries.filter((c) => !taken.has(c.iso2) || c.iso2 === iso2)}
        value={country}
        disabled={!!iso2}
        onChange={(_e, c) => setCountry(c)}
        getOptionLabel={(c) => `${c.name} (${c.iso2})`}
        isOptionEqualToValue={(a, b) => a.iso2 === b.iso2}
        renderInput={(params) => <TextField {...params} label={translate('routing.routes.country')} helperText=" " slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'route-country' } }} />}
      />
      <Typography sx={{ fontWeight: 700, fontSize: 14.5, mb: 0.5 }}>{translate('routing.routes.vendors')}</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>{translate('routing.routes.vendorsHint', { max: MAX_ROUTE_VENDORS })}</Typography>
      <Box sx={{ border: 1, borderColor: 'divider', borderRadius: '10px', overflow: 'hidden', mb: 1.5 }}>
        {ids.length === 0 && <Typography variant="body2" color="text.secondary" sx={{ p: 2 }}>{translate('routing.routes.noVendors')}</Typography>}
        {ids.map((id, i) => {
          const v = byId.get(id);
          return (
            <Box key={id} data-testid="route-vendor" sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: 1.5, py: 1, borderBottom: 1, borderColor: 'divider', '&:last-of-type': { borderBottom: 0 } }}>
              <Box sx={{ width: 24, height: 24, borderRadius: '50%', display: 'grid', placeItems: 'center', bgcolor: i === 0 ? 'primary.main' : '#f2f4f7', color: i === 0 ? '#fff' : 'text.secondary', fontSize: 12.5, fontWeight: 700 }}>{i + 1}</Box>
              <Box sx={{ flex: 1, minWidth: 0 }}>
                <Typography variant="body2" sx={{ fontWeight: 600 }}>{v?.name ?? `#${id}`}</Typography>
                <Typography variant="caption" color="text.secondary">{i === 0 ? translate('routing.routes.primary') : translate('routing.routes.fallback')}{v && !v.active ? ` · ${translate('routing.vendors.off')}` : ''}</Typography>
              </Box>
              <IconButton size="small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={translate('routing.routes.up')}><ArrowUpwardRoundedIcon fontSize="small" /></IconButton>
              <IconButton size="small" disabled={i === ids.length - 1} onClick={() => move(i, 1)} aria-label={translate('routing.routes.down')}><ArrowDownwardRoundedIcon fontSize="small" /></IconButton>
              <IconButton size="small" onClick={() => setIds((xs) => xs.filter((x) => x !== id))} aria-label={translate('routing.routes.removeVendor')}><CloseRoundedIcon fontSize="small" /></IconButton>
            </Box>
          );
        })}
      </Box>
      <TextField
        select
        size="small"
        value=""
        disabled={ids.length >= MAX_ROUTE_VENDORS || available.length === 0}
        onChange={(e) => setIds((xs) => [...xs, e.target.value])}
        label={translate('routing.routes.addVendor')}
        sx={{ width: 320 }}
        slotProps={{ select: { IconComponent: AddRoundedIcon, SelectDisplayProps: { 'data-testid': 'route-add-vendor' } as object } }}
        helperText={available.length === 0 ? translate('routing.routes.noMoreVendors') : ' '}
      >
        {available.map((v) => (
          <MenuItem key={v.id} value={String(v.id)}>{v.name}{v.active ? '' : ` (${translate('routing.vendors.off')})`}</MenuItem>
        ))}
      </TextField>
    </FormDialog>
  );
};
