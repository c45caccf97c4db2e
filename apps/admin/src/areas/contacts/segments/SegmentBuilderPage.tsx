import AddRoundedIcon from '@mui/icons-material/AddRounded';
import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import FilterAltOutlinedIcon from '@mui/icons-material/FilterAltOutlined';
import GroupsOutlinedIcon from '@mui/icons-material/GroupsOutlined';
import { Alert, Box, Button, CircularProgress, ListItemIcon, ListItemText, Menu, MenuItem, Paper, Skeleton, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate, useParams } from 'react-router-dom';
import { contactsApi } from '../api';
import { COUNT_DEBOUNCE_MS, FILTER_GROUPS, ListType, P, PATHS, PENDING_GROUPS, type FilterGroupType } from '../constants';
import type { SegmentFilter } from '../types';
import { errorText, fieldErrors, isAbort } from '../widgets/errors';
import { formatNumber } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useDebounced } from '../../../ui/useInterval';
import { GROUP_ICONS, GroupEditor } from './GroupEditor';
import { useLookups } from './lookups';
import { fromFilterText, isComplete, newGroup, toFilter, type DraftGroup } from './model';

/** The live count of spec: POST /contact_lists/total_by_filter, debounced, the older request aborted by a newer one. */
function useLiveCount(filter: SegmentFilter, enabled: boolean) {
  const debounced = useDebounced(filter, COUNT_DEBOUNCE_MS);
  const [state, setState] = useState<{ total: number | null; loading: boolean; error: unknown }>({ total: null, loading: true, error: null });
  useEffect(() => {
    if (!enabled) return undefined;
    const ctrl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    contactsApi
      .totalByFilter(debounced, ctrl.signal)
      .then((r) => setState({ total: r.total, loading: false, error: null }))
      .catch((e: unknown) => {
        if (!isAbort(e)) setState({ total: null, loading: false, error: e });
      });
    return () => ctrl.abort();
  }, [debounced, enabled]);
  const pending = JSON.stringify(debounced) !== JSON.stringify(filter);
  return { ...state, loading: state.loading || pending };
}

/**
 * The segment builder: the filter groups of spec 3 (country, operator, import list, segment, contact list,
 * clickers / registrations / FTDs, custom fields, created before / after), combined with all or any, and a live count
 * of the contacts they match. Creates a segment (/contact-lists/segments/new) or edits one (/contact-lists/segments/:id).
 */
export const SegmentBuilderPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const locale = translate('contacts.locale');
  const { id: rawId } = useParams();
  const segmentId = rawId && rawId !== 'new' ? Number(rawId) : undefined;
  const lookups = useLookups();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [match, setMatch] = useState<'all' | 'any'>('all');
  const [groups, setGroups] = useState<DraftGroup[]>([]);
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [loadError, setLoadError] = useState<unknown>(null);
  const [loading, setLoading] = useState(!!segmentId);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!segmentId) return;
    setLoading(true);
    contactsApi
      .contactList(segmentId)
      .then((l) => {
        if (l.type !== ListType.Segment) throw new Error('not a segment');
        const parsed = fromFilterText(l.filter);
        setName(l.name);
        setDescription(l.description ?? '');
        setMatch(parsed.match);
        setGroups(parsed.groups);
      })
      .catch(setLoadError)
      .finally(() => setLoading(false));
  }, [segmentId]);

  const filter = useMemo(() => toFilter(match, groups), [match, groups]);
  const count = useLiveCount(filter, !loading && !loadError);
  const incomplete = groups.filter((g) => !isComplete(g)).length;

  const update = (key: string, next: DraftGroup) => setGroups((gs) => gs.map((g) => (g.key === key ? next : g)));
  const add = (type: FilterGroupType) => {
    setGroups((gs) => [...gs, newGroup(type)]);
    setMenu(null);
  };

  const save = async () => {
    if (!name.trim()) {
      setErrors({ name: translate('contacts.errors.client.required') });
      return;
    }
    setSaving(true);
    setErrors({});
    try {
      const body = { name: name.trim(), description: description.trim(), filter };
      const saved = segmentId ? await contactsApi.updateContactList(segmentId, body) : await contactsApi.createSegment(body);
      notify(segmentId ? 'contacts.notification.EditedSuccessfully' : 'contacts.segments.created', { type: 'success' });
      navigate(`${PATHS.lists}?open=${saved.id}`);
    } catch (e) {
      setErrors(fieldErrors(e, translate));
      notify(segmentId ? translate('contacts.notification.EditedFailed') : errorText(e, translate), { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  if (loadError) {
    return (
      <Box>
        <PageHeading title={translate('contacts.segments.editTitle')} icon={<FilterAltOutlinedIcon />} />
        <Alert severity="error" action={<Button onClick={() => navigate(PATHS.lists)}>{translate('contacts.actions.back')}</Button>}>
          {errorText(loadError, translate)}
        </Alert>
      </Box>
    );
  }

  const filterError = errors.filter;
  return (
    <Box>
      <PageHeading
        title={translate(segmentId ? 'contacts.segments.editTitle' : 'contacts.segments.newTitle')}
        subtitle={translate('contacts.segments.subtitle')}
        icon={<FilterAltOutlinedIcon />}
        actions={
          <Button color="inherit" startIcon={<ArrowBackRoundedIcon />} onClick={() => navigate(PATHS.lists)}>
            {translate('contacts.lists.title')}
          </Button>
        }
      />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: 'minmax(0, 1fr) 320px' }, gap: 3, alignItems: 'start' }}>
        <Box sx={{ display: 'grid', gap: 3 }}>
          <Paper sx={{ p: 3 }}>
            <Typography variant="subtitle1" sx={{ fontWeight: 700, mb: 2 }}>
              {translate('contacts.segments.details')}
            </Typography>
            {loading ? (
              <Skeleton variant="rounded" height={120} />
            ) : (
              <Box sx={{ display: 'grid', gap: 2 }}>
                <TextField
                  label={translate('contacts.lists.fields.name')}
                  required
                  value={name}
                  onChange={(e) => {
                    setName(e.target.value);
                    setErrors((x) => ({ ...x, name: '' }));
                  }}
                  error={!!errors.name}
                  helperText={errors.name || undefined}
                  inputProps={{ maxLength: 255, 'data-testid': 'segment-name' }}
                />
                <TextField
                  label={translate('contacts.lists.fields.description')}
                  value={description}
                  multiline
                  minRows={2}
                  onChange={(e) => setDescription(e.target.value)}
                  inputProps={{ maxLength: 2000, 'data-testid': 'segment-description' }}
                />
              </Box>
            )}
          </Paper>
          <Paper sx={{ p: 3 }}>
            <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, mb: 2 }}>
              <Box sx={{ flex: 1, minWidth: 200 }}>
                <Typography variant="subtitle1" sx={{ fontWeight: 700 }}>
                  {translate('contacts.segments.filters')}
                </Typography>
                <Typography variant="body2" color="text.secondary">
                  {translate('contacts.segments.filtersHint')}
                </Typography>
              </Box>
              <ToggleButtonGroup
                exclusive
                size="small"
                value={match}
                onChange={(_e, v: 'all' | 'any' | null) => v && setMatch(v)}
                sx={{ '& .MuiToggleButton-root': { px: 1.75, textTransform: 'none', fontWeight: 600 } }}
              >
                <ToggleButton value="all" data-testid="match-all">
                  {translate('contacts.segments.matchAll')}
                </ToggleButton>
                <ToggleButton value="any" data-testid="match-any">
                  {translate('contacts.segments.matchAny')}
                </ToggleButton>
              </ToggleButtonGroup>
            </Box>
            {filterError && (
              <Alert severity="error" sx={{ mb: 2 }}>
                {filterError}
              </Alert>
            )}
            {loading ? (
              <Skeleton variant="rounded" height={100} />
            ) : (
              <Box sx={{ display: 'grid', gap: 1.5 }}>
                {groups.length === 0 && (
                  <Box sx={{ textAlign: 'center', py: 4, border: '1px dashed', borderColor: '#d0d5dd', borderRadius: '12px', color: 'text.secondary' }}>
                    <FilterAltOutlinedIcon sx={{ color: '#98a2b3' }} />
                    <Typography sx={{ fontWeight: 600, color: 'text.primary' }}>{translate('contacts.segments.noFilters')}</Typography>
                    <Typography variant="body2">{translate('contacts.segments.noFiltersText')}</Typography>
                  </Box>
                )}
                {groups.map((g, i) => (
                  <Box key={g.key}>
                    {i > 0 && (
                      <Typography variant="caption" sx={{ display: 'block', textAlign: 'center', fontWeight: 700, color: 'primary.main', letterSpacing: '.08em', mb: 1.5 }}>
                        {translate(match === 'all' ? 'contacts.segments.and' : 'contacts.segments.or')}
                      </Typography>
                    )}
                    <GroupEditor group={g} lookups={lookups} segmentId={segmentId} onChange={(next) => update(g.key, next)} onRemove={() => setGroups((gs) => gs.filter((x) => x.key !== g.key))} />
                  </Box>
                ))}
                <Box>
                  <Button variant="outlined" startIcon={<AddRoundedIcon />} onClick={(e) => setMenu(e.currentTarget)} data-testid="add-filter">
                    {translate('contacts.segments.addFilter')}
                  </Button>
                  <Menu anchorEl={menu} open={!!menu} onClose={() => setMenu(null)} slotProps={{ paper: { sx: { maxHeight: 420, width: 300 } } }}>
                    {/* groups whose data no service provides yet (campaign and offer results, operators) match nothing: not offered (decision 0026) */}
                    {FILTER_GROUPS.filter((type) => !PENDING_GROUPS.has(type)).map((type) => (
                      <MenuItem key={type} onClick={() => add(type)} data-testid={`add-filter-${type}`}>
                        <ListItemIcon>{GROUP_ICONS[type]}</ListItemIcon>
                        <ListItemText primary={translate(`contacts.segments.groups.${type}.title`)} />
                      </MenuItem>
                    ))}
                  </Menu>
                </Box>
              </Box>
            )}
          </Paper>
        </Box>
        <Paper sx={{ p: 3, position: { lg: 'sticky' }, top: { lg: 88 } }} data-testid="segment-count-card">
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
            <Box sx={{ width: 40, height: 40, borderRadius: '10px', display: 'grid', placeItems: 'center', bgcolor: '#ecfdf3', color: '#067647' }}>
              <GroupsOutlinedIcon />
            </Box>
            <Typography variant="subtitle2" color="text.secondary" sx={{ fontWeight: 600 }}>
              {translate('contacts.segments.liveCount')}
            </Typography>
          </Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 2, minHeight: 48 }}>
            <Typography sx={{ fontSize: 36, fontWeight: 700, letterSpacing: '-0.02em', fontVariantNumeric: 'tabular-nums', opacity: count.loading ? 0.45 : 1 }} data-testid="segment-count" data-loading={count.loading ? 'true' : 'false'}>
              {count.total === null ? '—' : formatNumber(count.total, locale)}
            </Typography>
            {count.loading && <CircularProgress size={20} />}
          </Box>
          <Typography variant="body2" color="text.secondary">
            {translate('contacts.segments.liveCountHint')}
          </Typography>
          {incomplete > 0 && (
            <Alert severity="warning" sx={{ mt: 2 }}>
              {translate('contacts.segments.incompleteHint', { smart_count: incomplete })}
            </Alert>
          )}
          {count.error != null && (
            <Alert severity="error" sx={{ mt: 2 }}>
              {errorText(count.error, translate)}
            </Alert>
          )}
          <GatedButton
            permission={segmentId ? P.ListEdit : P.ListAdd}
            fullWidth
            size="large"
            variant="contained"
            sx={{ mt: 3 }}
            disabled={saving || loading}
            startIcon={saving ? <CircularProgress size={18} color="inherit" /> : undefined}
            onClick={() => void save()}
            data-testid="segment-save"
          >
            {translate(segmentId ? 'contacts.actions.saveChanges' : 'contacts.segments.create')}
          </GatedButton>
        </Paper>
      </Box>
    </Box>
  );
};
