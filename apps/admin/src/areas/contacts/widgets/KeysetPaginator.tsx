import ChevronLeftRoundedIcon from '@mui/icons-material/ChevronLeftRounded';
import ChevronRightRoundedIcon from '@mui/icons-material/ChevronRightRounded';
import { Box, IconButton, MenuItem, Select, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { pageSizeOptions } from '../../../ui/table/pagination';

export interface KeysetPaginatorProps {
  /** 1-based index of the page shown. */
  page: number;
  perPage: number;
  shown: number;
  total: number;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  onPerPageChange: (n: number) => void;
  /** A size offered beside the standard ones (the table's own default). */
  extraSize?: number;
}

/**
 * The footer of a keyset-paged table (the contacts API pages by `after` = the last id seen): rows per page, the
 * range shown, previous and next. Page numbers cannot be jumped to, since a page is known only by the one before it.
 */
export const KeysetPaginator = ({ page, perPage, shown, total, hasNext, onPrevious, onNext, onPerPageChange, extraSize }: KeysetPaginatorProps) => {
  const translate = useTranslate();
  const from = shown === 0 ? 0 : (page - 1) * perPage + 1;
  const to = (page - 1) * perPage + shown;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, px: 2, py: 1.25, borderTop: 1, borderColor: 'divider' }} data-testid="keyset-pagination">
      <Typography variant="body2" color="text.secondary">
        {translate('ui.table.rowsPerPage')}
      </Typography>
      <Select size="small" value={perPage} onChange={(e) => onPerPageChange(Number(e.target.value))} sx={{ '& .MuiSelect-select': { py: 0.5, fontSize: 14 } }}>
        {[...new Set([...pageSizeOptions(perPage), ...(extraSize ? [extraSize] : [])])].sort((a, b) => a - b).map((n) => (
          <MenuItem key={n} value={n}>
            {n}
          </MenuItem>
        ))}
      </Select>
      <Typography variant="body2" color="text.secondary">
        {translate('ui.table.range', { from, to, total })}
      </Typography>
      <Box sx={{ flex: 1 }} />
      <IconButton size="small" disabled={page <= 1} onClick={onPrevious} aria-label={translate('ui.table.previous')}>
        <ChevronLeftRoundedIcon fontSize="small" />
      </IconButton>
      <Typography variant="body2" sx={{ fontWeight: 600, minWidth: 24, textAlign: 'center' }}>
        {page}
      </Typography>
      <IconButton size="small" disabled={!hasNext} onClick={onNext} aria-label={translate('ui.table.next')} data-testid="keyset-next">
        <ChevronRightRoundedIcon fontSize="small" />
      </IconButton>
    </Box>
  );
};
