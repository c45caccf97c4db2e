import { defaultTheme, type RaThemeOptions } from 'react-admin';
import { MENU_WIDTH_CLOSED, MENU_WIDTH_OPEN } from '../constants';

const FONT = '"Inter", "Roboto", "Segoe UI", "Helvetica Neue", "Liberation Sans", Arial, sans-serif';
const BORDER = '#e4e7ec';
export const BRAND = { main: '#4f46e5', light: '#818cf8', dark: '#3730a3', soft: '#eef2ff' };

/** One light theme: indigo primary, flat bordered cards, no uppercase buttons, the spec's menu widths (230/70). */
export const theme: RaThemeOptions = {
  ...defaultTheme,
  palette: {
    mode: 'light',
    primary: { main: BRAND.main, light: BRAND.light, dark: BRAND.dark, contrastText: '#ffffff' },
    secondary: { main: '#0ea5e9', contrastText: '#ffffff' },
    success: { main: '#16a34a' },
    warning: { main: '#d97706' },
    error: { main: '#dc2626' },
    background: { default: '#f5f6fa', paper: '#ffffff' },
    text: { primary: '#101828', secondary: '#5d6779' },
    divider: BORDER,
  },
  shape: { borderRadius: 10 },
  typography: {
    fontFamily: FONT,
    h4: { fontWeight: 700, letterSpacing: '-0.02em' },
    h5: { fontWeight: 700, letterSpacing: '-0.01em' },
    h6: { fontWeight: 600 },
    button: { textTransform: 'none', fontWeight: 600 },
  },
  sidebar: { width: MENU_WIDTH_OPEN, closedWidth: MENU_WIDTH_CLOSED },
  components: {
    ...defaultTheme.components,
    MuiButton: {
      defaultProps: { disableElevation: true },
      styleOverrides: { root: { borderRadius: 8 }, sizeLarge: { padding: '10px 20px' } },
    },
    MuiPaper: {
      styleOverrides: { rounded: { borderRadius: 12 }, elevation1: { boxShadow: '0 1px 2px rgba(16,24,40,.06)', border: `1px solid ${BORDER}` } },
    },
    MuiCard: { defaultProps: { elevation: 1 } },
    MuiTextField: { defaultProps: { variant: 'outlined', fullWidth: true } },
    MuiOutlinedInput: { styleOverrides: { root: { borderRadius: 8, backgroundColor: '#fff' } } },
    MuiAppBar: {
      styleOverrides: {
        colorSecondary: { backgroundColor: '#ffffff', color: '#101828', borderBottom: `1px solid ${BORDER}`, boxShadow: 'none' },
      },
    },
    MuiDialog: { styleOverrides: { paper: { borderRadius: 8 } } },
    // react-admin's layout is `min-width: fit-content` and its content a flex item that grows to its widest table: both
    // made a phone scroll sideways (decision 0026). Here the page is the viewport's width and wide tables scroll inside.
    RaLayout: {
      styleOverrides: {
        root: { minWidth: 0, '& .RaLayout-content': { padding: 24, minWidth: 0, '@media (max-width: 599.95px)': { padding: 12 } } },
      },
    },
    RaSidebar: {
      styleOverrides: {
        root: { '& .RaSidebar-fixed': { backgroundColor: '#ffffff', boxShadow: `inset -1px 0 0 ${BORDER}` } },
      },
    },
    RaMenuItemLink: {
      styleOverrides: {
        root: {
          margin: '2px 8px',
          borderRadius: 8,
          // long labels (Russian ones) wrap instead of ending in "…" in the open 230 px menu; the closed one shows icons
          '.RaMenu-open &': {
            whiteSpace: 'normal',
            lineHeight: 1.3,
            '& .MuiTypography-noWrap': { whiteSpace: 'normal', overflow: 'visible', textOverflow: 'clip' },
          },
          '&.RaMenuItemLink-active': { backgroundColor: BRAND.soft, color: BRAND.main, fontWeight: 600 },
          '&.RaMenuItemLink-active .MuiSvgIcon-root': { color: BRAND.main },
        },
      },
    },
  },
};
