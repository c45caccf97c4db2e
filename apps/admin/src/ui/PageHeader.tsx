import LogoutRoundedIcon from '@mui/icons-material/LogoutRounded';
import { Box, Button, Chip } from '@mui/material';
import { useLogout, useTranslate } from 'react-admin';
import { APP_VERSION } from '../constants';
import { LanguageSwitcher } from './LanguageSwitcher';
import { Logo } from './Logo';

/** The header of the full-page screens outside the shell (select-account, blocked-access): version and language. */
export const PageHeader = () => {
  const translate = useTranslate();
  const logout = useLogout();
  return (
    <Box
      component="header"
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 2,
        px: { xs: 2, sm: 4 },
        height: 64,
        bgcolor: 'background.paper',
        borderBottom: 1,
        borderColor: 'divider',
      }}
    >
      <Logo />
      <Chip size="small" label={translate('app.version', { version: APP_VERSION })} data-testid="header-version" sx={{ fontWeight: 500 }} />
      <Box sx={{ flex: 1 }} />
      <LanguageSwitcher />
      <Button color="inherit" size="small" startIcon={<LogoutRoundedIcon fontSize="small" />} onClick={() => logout()} sx={{ color: 'text.secondary' }}>
        {translate('selectAccount.logout')}
      </Button>
    </Box>
  );
};
