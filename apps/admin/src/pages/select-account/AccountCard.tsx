import BlockRoundedIcon from '@mui/icons-material/BlockRounded';
import WarningAmberRoundedIcon from '@mui/icons-material/WarningAmberRounded';
import { Box, Card, CardActionArea, Chip, CircularProgress, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { AccountSummary } from '../../providers/types';
import { AccountAvatar } from '../../ui/AccountAvatar';

interface Props {
  account: AccountSummary;
  current: boolean;
  switching: boolean;
  onChoose: (account: AccountSummary) => void;
}

/** One account of the picker: initials and name; a warning for restricted ones, "No Access" for disabled ones. */
export const AccountCard = ({ account, current, switching, onChoose }: Props) => {
  const translate = useTranslate();
  const disabled = account.status === 'disable' || account.status === 'delete';
  const restricted = account.status === 'restrict';
  return (
    <Card
      data-testid="account-card"
      data-account-id={account.id}
      data-status={account.status}
      sx={{
        height: '100%',
        borderColor: current ? 'primary.main' : undefined,
        boxShadow: current ? (t) => `0 0 0 1px ${t.palette.primary.main}` : undefined,
        transition: 'box-shadow .15s, transform .15s',
        '&:hover': { boxShadow: '0 8px 24px rgba(16,24,40,.08)', transform: 'translateY(-1px)' },
      }}
    >
      <CardActionArea onClick={() => onChoose(account)} disabled={switching} sx={{ height: '100%', p: 2.5, display: 'flex', alignItems: 'flex-start', justifyContent: 'flex-start', gap: 2 }}>
        <AccountAvatar name={account.name} muted={disabled} />
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Typography sx={{ fontWeight: 600, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', color: disabled ? 'text.secondary' : 'text.primary' }} title={account.name} data-testid="account-name">
              {account.name}
            </Typography>
            {current && <Chip size="small" color="primary" variant="outlined" label={translate('selectAccount.current')} sx={{ height: 20, fontSize: 11 }} />}
          </Box>
          {account.shortName && (
            <Typography variant="body2" color="text.secondary" noWrap>
              {account.shortName}
            </Typography>
          )}
          {restricted && (
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, mt: 0.75, color: 'warning.main' }} data-testid="account-restricted">
              <WarningAmberRoundedIcon sx={{ fontSize: 16 }} />
              <Typography variant="caption" sx={{ fontWeight: 600 }}>
                {translate('selectAccount.restricted')}
              </Typography>
            </Box>
          )}
          {disabled && (
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, mt: 0.75, color: 'error.main' }} data-testid="account-no-access">
              <BlockRoundedIcon sx={{ fontSize: 16 }} />
              <Typography variant="caption" sx={{ fontWeight: 600 }}>
                {translate('selectAccount.noAccess')}
              </Typography>
            </Box>
          )}
        </Box>
        {switching && <CircularProgress size={20} />}
      </CardActionArea>
    </Card>
  );
};
