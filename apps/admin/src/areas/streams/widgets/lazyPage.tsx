import { Box, CircularProgress } from '@mui/material';
import { lazy, Suspense, type ComponentType } from 'react';

/**
 * A page loaded on its first visit: keeps the first bundle small and keeps the area registry (which the i18n provider
 * imports) free of the pages' imports.
 */
export function lazyPage(load: () => Promise<ComponentType>) {
  const Page = lazy(async () => ({ default: await load() }));
  const Lazy = () => (
    <Suspense
      fallback={
        <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 240 }}>
          <CircularProgress />
        </Box>
      }
    >
      <Page />
    </Suspense>
  );
  return Lazy;
}
