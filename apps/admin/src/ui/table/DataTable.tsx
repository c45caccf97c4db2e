import SearchOffRoundedIcon from '@mui/icons-material/SearchOffRounded';
import { Box, Paper, Skeleton, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, TableSortLabel, Typography } from '@mui/material';
import { keyframes } from '@mui/system';
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { Paginator, type PaginatorProps } from './Paginator';

export interface Column<T> {
  key: string;
  label: ReactNode;
  render: (row: T) => ReactNode;
  /** Sortable columns sort by this value (client tables) or by `key` on the server. */
  sortValue?: (row: T) => string | number;
  sortable?: boolean;
  width?: number | string;
  align?: 'left' | 'right' | 'center';
  /** Left out below 600 px (a phone): the columns a row is recognised by stay, the rest is on its detail screen. */
  hideOnPhone?: boolean;
}

const phoneHidden = { display: { xs: 'none', sm: 'table-cell' } } as const;

export type SortOrder = 'asc' | 'desc';
export interface SortState {
  field: string;
  order: SortOrder;
}

export interface DataTableProps<T> {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  loading?: boolean;
  sort?: SortState;
  onSort?: (field: string) => void;
  pagination?: PaginatorProps;
  /** The no-results panel; a default one otherwise. */
  empty?: ReactNode;
  testId?: string;
  rowTestId?: string;
  onRowClick?: (row: T) => void;
  /** Above this height the body scrolls under the sticky header. */
  maxHeight?: number | string;
  toolbar?: ReactNode;
  dense?: boolean;
  /** A footer of its own (keyset paging) instead of the page-number one. */
  footer?: ReactNode;
}

const blink = keyframes`0%, 80%, 100% { opacity: .2 } 40% { opacity: 1 }`;

/** Spec 2: the loading skeleton is three rows plus three dots. */
export const LoadingSkeleton = ({ columns }: { columns: number }) => (
  <>
    {[0, 1, 2].map((i) => (
      <TableRow key={i} data-testid="table-loading">
        {Array.from({ length: columns }, (_, c) => (
          <TableCell key={c}>
            <Skeleton variant="text" width={c === 0 ? '70%' : '50%'} />
          </TableCell>
        ))}
      </TableRow>
    ))}
    <TableRow>
      <TableCell colSpan={columns} sx={{ textAlign: 'center', borderBottom: 0 }}>
        <LoadingDots />
      </TableCell>
    </TableRow>
  </>
);

export const LoadingDots = () => (
  <Box component="span" sx={{ display: 'inline-flex' }}>
    {[0, 1, 2].map((i) => (
      <Box
        key={i}
        component="span"
        sx={{ display: 'inline-block', width: 7, height: 7, mx: 0.5, borderRadius: '50%', bgcolor: 'primary.main', animation: `${blink} 1.2s ${i * 0.2}s infinite ease-in-out` }}
      />
    ))}
  </Box>
);

/** The no-results panel; `icon` replaces the default magnifier, `action` is the call to action (hidden without permission). */
export const NoResults = ({ title, text, action, icon }: { title: string; text?: string; action?: ReactNode; icon?: ReactNode }) => (
  <Box sx={{ textAlign: 'center', py: 7, px: 2 }} data-testid="no-results">
    <Box sx={{ width: 56, height: 56, borderRadius: '50%', display: 'inline-grid', placeItems: 'center', bgcolor: '#f2f4f7', color: 'text.secondary', mb: 1.5 }}>
      {icon ?? <SearchOffRoundedIcon />}
    </Box>
    <Typography sx={{ fontWeight: 600 }}>{title}</Typography>
    {text && (
      <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5, maxWidth: 440, mx: 'auto' }}>
        {text}
      </Typography>
    )}
    {action && <Box sx={{ mt: 2 }}>{action}</Box>}
  </Box>
);

/**
 * The shared table of spec 2: sortable headers, a sticky header, a loading skeleton, a no-results panel and the
 * pagination footer; it scrolls back to the top when the page changes.
 */
export function DataTable<T>({ columns, rows, rowKey, loading, sort, onSort, pagination, empty, testId, rowTestId, onRowClick, maxHeight = 'calc(100vh - 290px)', toolbar, dense, footer }: DataTableProps<T>) {
  const translate = useTranslate();
  const container = useRef<HTMLDivElement>(null);
  const page = pagination?.page;
  useEffect(() => {
    if (container.current) container.current.scrollTop = 0;
    if (typeof window !== 'undefined' && page !== undefined) window.scrollTo({ top: 0 });
  }, [page, pagination?.perPage]);

  const showEmpty = !loading && rows.length === 0;
  return (
    <Paper sx={{ overflow: 'hidden' }} data-testid={testId}>
      {toolbar}
      <TableContainer ref={container} sx={{ maxHeight, minHeight: showEmpty ? undefined : 120 }}>
        <Table
          stickyHeader
          size={dense ? 'small' : 'medium'}
          sx={{ '& th': { bgcolor: '#f9fafb', color: 'text.secondary', fontSize: 12.5, fontWeight: 600, textTransform: 'uppercase', letterSpacing: '.03em', py: 1.25 } }}
        >
          <TableHead>
            <TableRow>
              {columns.map((c) => (
                <TableCell key={c.key} align={c.align} sx={{ width: c.width, whiteSpace: 'nowrap', ...(c.hideOnPhone ? phoneHidden : {}) }}>
                  {c.sortable && onSort ? (
                    <TableSortLabel active={sort?.field === c.key} direction={sort?.field === c.key ? sort.order : 'asc'} onClick={() => onSort(c.key)}>
                      {c.label}
                    </TableSortLabel>
                  ) : (
                    c.label
                  )}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {loading && rows.length === 0 ? (
              <LoadingSkeleton columns={columns.length} />
            ) : (
              rows.map((row) => (
                <TableRow
                  key={rowKey(row)}
                  hover
                  data-testid={rowTestId}
                  onClick={onRowClick ? () => onRowClick(row) : undefined}
                  sx={{ cursor: onRowClick ? 'pointer' : undefined, '&:last-child td': { borderBottom: 0 }, opacity: loading ? 0.6 : 1, transition: 'opacity .2s' }}
                >
                  {columns.map((c) => (
                    <TableCell key={c.key} align={c.align} sx={c.hideOnPhone ? phoneHidden : undefined}>
                      {c.render(row)}
                    </TableCell>
                  ))}
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
        {showEmpty && (empty ?? <NoResults title={translate('ui.table.noResults')} />)}
      </TableContainer>
      {pagination && pagination.total > 0 && <Paginator {...pagination} />}
      {footer}
    </Paper>
  );
}

/** Stops a click inside a clickable row (menus, switches) from opening the row. */
export const stop = (e: { stopPropagation: () => void }) => e.stopPropagation();
