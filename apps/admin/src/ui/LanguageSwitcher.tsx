import TranslateIcon from '@mui/icons-material/Translate';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Button, Menu, MenuItem, type SxProps, type Theme } from '@mui/material';
import { useEffect, useState, type MouseEvent } from 'react';
import { useI18nProvider, useLocaleState, useStore, useTranslate } from 'react-admin';
import { LOCALES } from '../providers/i18n-provider';

/**
 * EN / RU switch; the choice is saved in localStorage by the i18nProvider and survives a reload. The language shown is
 * the one the texts are in (the i18nProvider's). react-admin keeps its own copy in its store, which logging out empties;
 * `useLocaleState` then answers the language of the page's first render, so choosing the language the texts were
 * switched away from did nothing until another one was chosen first. The store is refilled from the provider.
 */
export const LanguageSwitcher = ({ sx }: { sx?: SxProps<Theme> }) => {
  const translate = useTranslate();
  const i18n = useI18nProvider();
  const [, setLocale] = useLocaleState();
  const [stored, setStored] = useStore<string | undefined>('locale');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const locale = i18n.getLocale();
  const current = LOCALES.find((l) => l.locale === locale) ?? LOCALES[0];

  useEffect(() => {
    if (stored === undefined) setStored(i18n.getLocale());
  }, [stored, setStored, i18n]);

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
