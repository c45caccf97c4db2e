import LockRoundedIcon from '@mui/icons-material/LockRounded';
import { Alert, Box, Button, ButtonBase, Chip, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { useIsSuperAdmin } from '../../../ui/permissions';
import { useProfile } from '../../../ui/useProfile';
import { STREAM_TYPES, TYPE_KEY, TYPE_SETTING } from '../constants';
import { TypeTile } from '../labels';

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';

/** Whether the account may create a stream type (spec 3 customSettings allow_*); unknown settings allow everything. */
export function typeAllowed(type: number, settings: Record<string, unknown> | undefined): boolean {
  const key = TYPE_SETTING[type];
  if (!key || !settings) return true;
  return truthy(settings[key]);
}

const GROUPS: Array<{ key: string; types: number[] }> = [
  { key: 'sms', types: [1, 2, 3, 4] },
  { key: 'messengers', types: [5, 7, 8] },
];

/** Step one of the create-stream modal: the seven stream types of spec 4 as cards, grouped SMS / messengers. */
export const TypePicker = ({ value, onChange, settings }: { value: number | null; onChange: (t: number) => void; settings?: Record<string, unknown> }) => {
  const translate = useTranslate();
  const superAdmin = useIsSuperAdmin();
  const { profile } = useProfile();
  const account = profile?.customer;
  const locked = STREAM_TYPES.filter((t) => !typeAllowed(t, settings));
  return (
    <Box>
      {GROUPS.map((g) => (
        <Box key={g.key} sx={{ '& + &': { mt: 2.5 } }}>
          <Typography variant="overline" color="text.secondary" sx={{ fontWeight: 700, letterSpacing: '.06em' }}>
            {translate(`streams.createStream.groups.${g.key}`)}
          </Typography>
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 1.25, mt: 0.5 }}>
            {g.types
              .filter((t) => STREAM_TYPES.includes(t as (typeof STREAM_TYPES)[number]))
              .map((t) => {
                const allowed = typeAllowed(t, settings);
                const selected = value === t;
                return (
                  <ButtonBase
                    key={t}
                    disabled={!allowed}
                    onClick={() => onChange(t)}
                    data-testid={`stream-type-${TYPE_KEY[t]}`}
                    aria-pressed={selected}
                    sx={{
                      display: 'flex',
                      alignItems: 'flex-start',
                      justifyContent: 'flex-start',
                      textAlign: 'left',
                      gap: 1.5,
                      p: 1.75,
                      borderRadius: '10px',
                      border: '1.5px solid',
                      borderColor: selected ? 'primary.main' : 'divider',
                      bgcolor: selected ? '#f5f7ff' : 'background.paper',
                      boxShadow: selected ? '0 0 0 3px rgba(79,70,229,.12)' : 'none',
                      transition: 'border-color .15s, box-shadow .15s, background-color .15s',
                      opacity: allowed ? 1 : 0.55,
                      '&:hover': allowed ? { borderColor: selected ? 'primary.main' : '#c7cdd8' } : undefined,
                    }}
                  >
                    <TypeTile type={t} size={38} />
                    <Box sx={{ minWidth: 0, flex: 1 }}>
                      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                        <Typography sx={{ fontWeight: 650, fontSize: 14.5 }}>{translate(`streams.types.${TYPE_KEY[t]}.title`)}</Typography>
                        {!allowed && <Chip size="small" icon={<LockRoundedIcon sx={{ fontSize: '14px !important' }} />} label={translate('streams.createStream.notEnabled')} sx={{ height: 20, fontSize: 11 }} />}
                      </Box>
                      <Typography variant="body2" color="text.secondary" sx={{ mt: 0.25, lineHeight: 1.4 }}>
                        {translate(`streams.types.${TYPE_KEY[t]}.description`)}
                      </Typography>
                    </Box>
                  </ButtonBase>
                );
              })}
          </Box>
        </Box>
      ))}
      {locked.length > 0 && (
        // what turns a locked type on: a platform administrator's switch in the account's settings (decision 0026)
        <Alert
          severity="info"
          sx={{ mt: 2.5 }}
          data-testid="stream-types-locked"
          action={
            superAdmin && account ? (
              <Button component={RouterLink} to={`/superadmin/accounts?settings=${account.id}&search=${encodeURIComponent(account.name)}`} color="inherit" size="small" data-testid="stream-types-enable">
                {translate('streams.createStream.enableLink')}
              </Button>
            ) : undefined
          }
        >
          {translate(superAdmin ? 'streams.createStream.lockedSuperAdmin' : 'streams.createStream.locked', {
            types: locked.map((t) => translate(`streams.types.${TYPE_KEY[t]}.title`)).join(', '),
          })}
        </Alert>
      )}
    </Box>
  );
};
