import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import { Box, Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { BRAND } from './theme';
import { Copyright } from './Copyright';
import { LanguageSwitcher } from './LanguageSwitcher';
import { Logo } from './Logo';

/**
 * Spec 2 "Login layout": the form column (logo, language switcher, copyright with the version) and a promo panel
 * at the side that a CSS media query hides on narrow screens.
 */
export const AuthLayout = ({ children }: { children: ReactNode }) => (
  <Box sx={{ minHeight: '100vh', display: 'flex', bgcolor: 'background.default' }}>
    <Box sx={{ flex: 1, display: 'flex', flexDirection: 'column', minWidth: 0, px: { xs: 2, sm: 5 }, py: 3 }}>
      <Box component="header" sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between' }}>
        <Logo />
        <LanguageSwitcher />
      </Box>
      <Box component="main" sx={{ flex: 1, display: 'flex', alignItems: 'center', justifyContent: 'center', py: 4 }}>
        <Paper sx={{ width: '100%', maxWidth: 440, p: { xs: 3, sm: 5 } }}>{children}</Paper>
      </Box>
      <Box component="footer" sx={{ textAlign: 'center' }}>
        <Copyright />
      </Box>
    </Box>
    <PromoPanel />
  </Box>
);

const PromoPanel = () => {
  const translate = useTranslate();
  const points = ['login.promo.campaigns', 'login.promo.streams', 'login.promo.inbox'];
  return (
    <Box
      component="aside"
      className="auth-promo"
      data-testid="login-promo"
      sx={{
        width: '44%',
        maxWidth: 640,
        flexDirection: 'column',
        justifyContent: 'space-between',
        p: 6,
        color: '#fff',
        position: 'relative',
        overflow: 'hidden',
        background: `radial-gradient(circle at 85% 10%, rgba(255,255,255,.18), transparent 40%), linear-gradient(150deg, ${BRAND.main} 0%, ${BRAND.dark} 100%)`,
        // spec 2: hidden on narrow screens
        display: 'flex',
        '@media (max-width: 960px)': { display: 'none' },
      }}
    >
      <Logo inverted />
      <Box sx={{ maxWidth: 460 }}>
        <Typography variant="h4" component="h2" sx={{ color: '#fff', mb: 2, lineHeight: 1.2 }}>
          {translate('login.promo.title')}
        </Typography>
        <Typography sx={{ opacity: 0.85, mb: 4, lineHeight: 1.6 }}>{translate('login.promo.text')}</Typography>
        <Stack spacing={1.75}>
          {points.map((key) => (
            <Box key={key} sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
              <CheckCircleRoundedIcon sx={{ color: '#a5b4fc' }} />
              <Typography sx={{ fontWeight: 500 }}>{translate(key)}</Typography>
            </Box>
          ))}
        </Stack>
      </Box>
      <PreviewCard />
    </Box>
  );
};

/** A small decorative chat preview so the panel is not only text. */
const PreviewCard = () => (
  <Box
    aria-hidden
    sx={{
      alignSelf: 'flex-start',
      width: 320,
      borderRadius: 3,
      p: 2,
      bgcolor: 'rgba(255,255,255,.12)',
      border: '1px solid rgba(255,255,255,.22)',
      backdropFilter: 'blur(6px)',
    }}
  >
    {[
      { w: '70%', me: false },
      { w: '55%', me: true },
      { w: '80%', me: false },
    ].map((b, i) => (
      <Box key={i} sx={{ display: 'flex', justifyContent: b.me ? 'flex-end' : 'flex-start', mb: i < 2 ? 1 : 0 }}>
        <Box sx={{ width: b.w, height: 26, borderRadius: 2, bgcolor: b.me ? '#a5b4fc' : 'rgba(255,255,255,.85)' }} />
      </Box>
    ))}
  </Box>
);
