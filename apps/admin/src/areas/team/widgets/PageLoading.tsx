import { Box, CircularProgress } from '@mui/material';

/** While the profile (and so the permissions) is loading, a page shows this rather than a premature "no permission". */
export const PageLoading = () => (
  <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 240 }} data-testid="page-loading">
    <CircularProgress />
  </Box>
);
