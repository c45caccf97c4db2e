import { Box, CircularProgress } from '@mui/material';
import { lazy, Suspense, type ComponentType } from 'react';

/**
 * A page loaded on first visit. Besides keeping the first bundle small, it keeps the area registry free of the
 * pages' imports: the public pages use AuthLayout, whose language switcher imports the i18n provider, which imports
 * the registry; a static import would make that a cycle evaluated before the registry exists.
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
