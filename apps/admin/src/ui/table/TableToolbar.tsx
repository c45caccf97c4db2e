import SearchRoundedIcon from '@mui/icons-material/SearchRounded';
import { Alert, Box, InputAdornment, Tab, Tabs, TextField, type SxProps, type Theme } from '@mui/material';
import type { ReactNode } from 'react';

const asArray = (sx?: SxProps<Theme>) => (sx === undefined ? [] : Array.isArray(sx) ? sx : [sx]);

/** The strip above a DataTable's rows: tabs on the left, filters on the right, a divider below. */
export const TableToolbar = ({ children, sx }: { children: ReactNode; sx?: SxProps<Theme> }) => (
  <Box sx={[{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, px: 2, pt: 1, borderBottom: 1, borderColor: 'divider' }, ...asArray(sx)] as SxProps<Theme>}>{children}</Box>
);

/** Pushes what follows it in a TableToolbar to the right. */
export const ToolbarSpacer = () => <Box sx={{ flex: 1 }} />;

export interface ToolbarTab<V extends string> {
  value: V;
  label: ReactNode;
  testId?: string;
}

/** The filter tabs of a table toolbar; `tabSx` styles each tab (compact by default). */
export function ToolbarTabs<V extends string>({ value, onChange, tabs, tabSx = { minWidth: 0 } }: { value: V; onChange: (value: V) => void; tabs: ToolbarTab<V>[]; tabSx?: Record<string, unknown> }) {
  return (
    <Tabs value={value} onChange={(_e, v: V) => onChange(v)} sx={{ minHeight: 44, '& .MuiTab-root': { minHeight: 44, px: 1.5, ...tabSx } }}>
      {tabs.map((t) => (
        <Tab key={t.value} value={t.value} label={t.label} data-testid={t.testId} />
      ))}
    </Tabs>
  );
}

/** A small search box with a magnifier. */
export const SearchField = ({ value, onChange, placeholder, sx, testId }: { value: string; onChange: (value: string) => void; placeholder: string; sx?: SxProps<Theme>; testId?: string }) => (
  <TextField
    size="small"
    value={value}
    onChange={(e) => onChange(e.target.value)}
    placeholder={placeholder}
    sx={sx}
    slotProps={{
      input: {
        startAdornment: (
          <InputAdornment position="start">
            <SearchRoundedIcon fontSize="small" />
          </InputAdornment>
        ),
      },
      htmlInput: testId ? { 'data-testid': testId } : undefined,
    }}
  />
);

/** The banner of a table whose rows failed to load; nothing while `message` is empty. */
export const LoadErrorBanner = ({ message }: { message: string | null | undefined }) =>
  message ? (
    <Alert severity="error" sx={{ mb: 2 }}>
      {message}
    </Alert>
  ) : null;
