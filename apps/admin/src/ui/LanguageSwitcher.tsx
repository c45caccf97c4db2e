import TranslateIcon from '@mui/icons-material/Translate';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Button, Menu, MenuItem, type SxProps, type Theme } from '@mui/material';
import { useState, type MouseEvent } from 'react';
import { useLocaleState, useTranslate } from 'react-admin';
import { LOCALES } from '../providers/i18n-provider';

/** EN / RU switch; the choice is saved in localStorage by the i18nProvider and survives a reload. */
export const LanguageSwitcher = ({ sx }: { sx?: SxProps<Theme> }) => {
  const translate = useTranslate();
  const [locale, setLocale] = useLocaleState();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = LOCALES.find((l) => l.locale === locale) ?? LOCALES[0];

  const choose = (code: string) => {
    setAnchor(null);
    if (code !== locale) setLocale(code);
  };

  return (
    <>
      <Button
        color="inherit"
        size="small"
        startIcon={<TranslateIcon fontSize="small" />}
        endIcon={<ExpandMoreIcon fontSize="small" />}
        onClick={(e: MouseEvent<HTMLElement>) => setAnchor(e.currentTarget)}
        aria-label={translate('language.label')}
        aria-haspopup="menu"
        data-testid="language-switcher"
        sx={{ fontWeight: 500, color: 'text.secondary', ...sx }}
      >
        {current.name}
      </Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {LOCALES.map((l) => (
          <MenuItem key={l.locale} selected={l.locale === locale} onClick={() => choose(l.locale)} lang={l.locale}>
            {l.name}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
};
