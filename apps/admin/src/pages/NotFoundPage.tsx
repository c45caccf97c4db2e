import { Box, Button, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';

/** Spec 2: unknown pages show "Not found ..(". */
export const NotFoundPage = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ textAlign: 'center', py: 12 }} data-testid="not-found">
      <Title title={translate('notFound.title')} />
      <Typography sx={{ fontSize: 88, fontWeight: 800, color: 'primary.main', opacity: 0.15, lineHeight: 1 }}>404</Typography>
      <Typography variant="h4" component="h1" gutterBottom>
        {translate('notFound.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {translate('notFound.text')}
      </Typography>
      <Button component={RouterLink} to="/home" variant="contained">
        {translate('notFound.back')}
      </Button>
    </Box>
  );
};
