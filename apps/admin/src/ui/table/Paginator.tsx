import ChevronLeftRoundedIcon from '@mui/icons-material/ChevronLeftRounded';
import ChevronRightRoundedIcon from '@mui/icons-material/ChevronRightRounded';
import { Box, Button, IconButton, MenuItem, Select, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { pageItems, pageSizeOptions } from './pagination';

export interface PaginatorProps {
  page: number;
  perPage: number;
  total: number;
  onPageChange: (page: number) => void;
  onPerPageChange: (perPage: number) => void;
}

/** The table footer of spec 2: rows-per-page, the shown range, and 4 pages in range plus 1 margin page, with previous and next. */
export const Paginator = ({ page, perPage, total, onPageChange, onPerPageChange }: PaginatorProps) => {
  const translate = useTranslate();
  const pageCount = Math.max(1, Math.ceil(total / perPage));
  const from = total === 0 ? 0 : (page - 1) * perPage + 1;
  const to = Math.min(total, page * perPage);
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, px: 2, py: 1.25, borderTop: 1, borderColor: 'divider' }} data-testid="table-pagination">
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Typography variant="body2" color="text.secondary">
          {translate('ui.table.rowsPerPage')}
        </Typography>
        <Select
          size="small"
          value={perPage}
          onChange={(e) => onPerPageChange(Number(e.target.value))}
          sx={{ '& .MuiSelect-select': { py: 0.5, fontSize: 14 } }}
          inputProps={{ 'aria-label': translate('ui.table.rowsPerPage'), 'data-testid': 'page-size' }}
        >
          {pageSizeOptions(perPage).map((n) => (
            <MenuItem key={n} value={n}>
              {n}
            </MenuItem>
          ))}
        </Select>
        <Typography variant="body2" color="text.secondary" sx={{ ml: 1 }}>
          {translate('ui.table.range', { from, to, total })}
        </Typography>
      </Box>
      <Box sx={{ flex: 1 }} />
      <Box component="nav" sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }} aria-label={translate('ui.table.pages')}>
        <IconButton size="small" disabled={page <= 1} onClick={() => onPageChange(page - 1)} aria-label={translate('ui.table.previous')}>
          <ChevronLeftRoundedIcon fontSize="small" />
        </IconButton>
        {pageItems(page, pageCount).map((item) =>
          typeof item === 'number' ? (
            <Button
              key={item}
              size="small"
              variant={item === page ? 'contained' : 'text'}
              color={item === page ? 'primary' : 'inherit'}
              onClick={() => item !== page && onPageChange(item)}
              aria-current={item === page ? 'page' : undefined}
              sx={{ minWidth: 32, height: 32, px: 0.5, borderRadius: '8px', fontWeight: item === page ? 700 : 500 }}
            >
              {item}
            </Button>
          ) : (
            <Typography key={item} component="span" color="text.secondary" sx={{ px: 0.5 }}>
              …
            </Typography>
          ),
        )}
        <IconButton size="small" disabled={page >= pageCount} onClick={() => onPageChange(page + 1)} aria-label={translate('ui.table.next')}>
          <ChevronRightRoundedIcon fontSize="small" />
        </IconButton>
      </Box>
    </Box>
  );
};
