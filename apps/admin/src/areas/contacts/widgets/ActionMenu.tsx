import MoreVertRoundedIcon from '@mui/icons-material/MoreVertRounded';
import { IconButton, ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { GatedMenuItem } from '../../../ui/Gated';

export interface ActionItem {
  key: string;
  label: string;
  icon?: ReactNode;
  onClick: () => void | Promise<unknown>;
  /** Without this permission the item is disabled with a tooltip naming it (spec 2). */
  permission?: string;
  danger?: boolean;
  disabled?: boolean;
  hidden?: boolean;
  testId?: string;
}

/**
 * The row's "more actions" menu (spec 2: menus open on click, close on scroll, and close after an item's action
 * finishes).
 */
export const ActionMenu = ({ items, testId = 'row-actions' }: { items: ActionItem[]; testId?: string }) => {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (!anchor) return undefined;
    const close = () => setAnchor(null);
    window.addEventListener('scroll', close, { passive: true });
    return () => window.removeEventListener('scroll', close);
  }, [anchor]);
  const shown = items.filter((i) => !i.hidden);
  if (!shown.length) return null;
  const run = async (item: ActionItem) => {
    try {
      await item.onClick();
    } finally {
      setAnchor(null);
    }
  };
  return (
    <>
      <IconButton
        size="small"
        aria-label={translate('contacts.actions.more')}
        data-testid={testId}
        onClick={(e) => {
          e.stopPropagation();
          setAnchor(e.currentTarget);
        }}
      >
        <MoreVertRoundedIcon fontSize="small" />
      </IconButton>
      <Menu
        anchorEl={anchor}
        open={!!anchor}
        onClose={() => setAnchor(null)}
        onClick={(e) => e.stopPropagation()}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { minWidth: 180 } } }}
      >
        {shown.map((item) => {
          const content = (
            <>
              {item.icon && <ListItemIcon sx={{ color: item.danger ? 'error.main' : undefined }}>{item.icon}</ListItemIcon>}
              <ListItemText>{item.label}</ListItemText>
            </>
          );
          const sx = { color: item.danger ? 'error.main' : undefined };
          return item.permission ? (
            <GatedMenuItem key={item.key} permission={item.permission} disabled={item.disabled} onClick={() => void run(item)} data-testid={item.testId} sx={sx}>
              {content}
            </GatedMenuItem>
          ) : (
            <MenuItem key={item.key} disabled={item.disabled} onClick={() => void run(item)} data-testid={item.testId} sx={sx}>
              {content}
            </MenuItem>
          );
        })}
      </Menu>
    </>
  );
};
