import CampaignRoundedIcon from '@mui/icons-material/CampaignRounded';
import { Alert, Box, Button, CircularProgress, Step as MuiStep, StepButton, Stepper, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { AppModal } from '../../../ui/modal/AppModal';
import { enterPicksNotSubmits } from '../../../ui/modal/FormDialog';
import { campaignsApi } from '../api';
import type { Campaign } from '../types';
import { clientError, errorText, fieldErrors } from '../widgets/errors';
import { ChangesReview } from './ChangesReview';
import { useLookups, type Lookups } from './lookups';
import { changes, emptyValues, fromCampaign, linkRows, STEPS, stepErrors, toInput, variableRows, type Change, type Step, type WizardValues } from './model';
import { AudienceStep } from './steps/AudienceStep';
import { DetailsStep } from './steps/DetailsStep';
import { MessageStep } from './steps/MessageStep';
import { ScheduleStep } from './steps/ScheduleStep';
import { SendersStep } from './steps/SendersStep';
import { SettingsStep } from './steps/SettingsStep';

/** Which step a server violation belongs to, by the first segment of its property path. */
const FIELD_STEP: Record<string, Step> = {
  name: 'details',
  description: 'details',
  type: 'details',
  stream: 'details',
  campaignTags: 'details',
  contactLists: 'audience',
  sendDuplicates: 'audience',
  unsubscribeAutoAdd: 'audience',
  campaignVariants: 'message',
  campaignsSenders: 'senders',
  campaignVariables: 'message',
  activityTime: 'schedule',
  campaignSettings: 'settings',
};

const emptyLookups: Lookups = { streams: [], senders: [], lists: [], tags: [], variables: [], timezones: [], templates: [], wordLists: [] };

export interface CampaignWizardProps {
  open: boolean;
  /** Editing this campaign, or creating one. */
  campaign: Campaign | null;
  onClose: () => void;
  onSaved: (c: Campaign, created: boolean) => void;
}

/**
 * The create campaign modal of spec 2, as a six-step wizard: details and stream, audience, message, senders, schedule,
 * settings. Each step is checked before the next (spec 5 rules); a new campaign is saved as a draft or saved and
 * started; an edit shows the changes-review popup before it is saved.
 */
export const CampaignWizard = ({ open, campaign, onClose, onSaved }: CampaignWizardProps) => {
  const translate = useTranslate();
  const notify = useNotify();
  const word = translate('campaigns.message.variantWord');
  const loaded = useLookups(open);
  const [extra, setExtra] = useState<Partial<Lookups>>({});
  const lookups: Lookups = { ...emptyLookups, ...(loaded.data ?? {}), ...extra };
  const [initial, setInitial] = useState<WizardValues>(() => emptyValues(word));
  const [v, setV] = useState<WizardValues>(initial);
  const [step, setStep] = useState(0);
  const [visited, setVisited] = useState(0);
  const [tried, setTried] = useState<Set<Step>>(new Set());
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState<false | 'draft' | 'start' | 'save'>(false);
  const [review, setReview] = useState<Change[] | null>(null);

  useEffect(() => {
    if (!open) return;
    const start = campaign ? fromCampaign(campaign, word) : emptyValues(word);
    setInitial(start);
    setV(start);
    setStep(0);
    setVisited(campaign ? STEPS.length - 1 : 0);
    setTried(new Set());
    setServerErrors({});
    setBanner(null);
    setReview(null);
    setExtra({});
    // an edited campaign's variable links (default value, missing rule) come with it
    let live = true;
    if (campaign)
      campaignsApi.variables(campaign.id).then(
        (r) => {
          if (!live) return;
          const rows = variableRows(r.items);
          const links = linkRows(r.items);
          setInitial((x) => ({ ...x, variables: rows, links }));
          setV((x) => ({ ...x, variables: [...rows, ...x.variables.filter((y) => !rows.some((z) => z.name === y.name))], links: [...links, ...x.links.filter((y) => !links.some((z) => z.name === y.name))] }));
        },
        () => undefined,
      );
    return () => {
      live = false;
    };
    // a new campaign or another campaign starts the wizard afresh
  }, [open, campaign?.id]);

  // the stream preselected when there is only one
  useEffect(() => {
    if (open && !campaign && v.stream === '' && lookups.streams.length === 1) setV((x) => ({ ...x, stream: lookups.streams[0].id }));
  }, [open, campaign, v.stream, lookups.streams]);

  const current = STEPS[step];
  const set = (patch: Partial<WizardValues>) => {
    setV((x) => ({ ...x, ...patch }));
    setServerErrors({});
  };
  const errorsOf = (s: Step): Record<string, string> => {
    const raw = stepErrors(s, v);
    const out: Record<string, string> = {};
    for (const [k, key] of Object.entries(raw)) out[k] = clientError(key, translate);
    return out;
  };
  const shown: Record<string, string> = tried.has(current) ? { ...errorsOf(current), ...serverErrors } : serverErrors;

  const check = (s: Step): boolean => {
    const ok = Object.keys(stepErrors(s, v)).length === 0;
    if (!ok) setTried((t) => new Set(t).add(s));
    return ok;
  };
  const next = () => {
    if (!check(current)) return;
    const n = Math.min(step + 1, STEPS.length - 1);
    setStep(n);
    setVisited((x) => Math.max(x, n));
  };
  const goto = (i: number) => {
    if (i > step && !check(current)) return;
    if (i <= visited) setStep(i);
  };
  /** Every step valid, or the first invalid one shown. */
  const checkAll = (): boolean => {
    const bad = STEPS.findIndex((s) => Object.keys(stepErrors(s, v)).length > 0);
    if (bad < 0) return true;
    setTried((t) => new Set(t).add(STEPS[bad]));
    setStep(bad);
    return false;
  };
  const showServer = (e: unknown) => {
    const fields = fieldErrors(e, translate);
    const first = Object.keys(fields).find((f) => FIELD_STEP[f]);
    const mapped: Record<string, string> = {};
    for (const [f, text] of Object.entries(fields)) {
      if (f === 'campaignVariants' || f === 'campaignVariables') mapped.variants = text;
      else if (f === 'campaignsSenders') mapped.senders = text;
      else if (f === 'contactLists') mapped.contactLists = text;
      else if (f === 'activityTime') mapped.hours = text;
      else if (f === 'campaignSettings') mapped.ctr = text;
      else mapped[f] = text;
    }
    setServerErrors(mapped);
    if (first) setStep(STEPS.indexOf(FIELD_STEP[first]));
    setBanner(errorText(e, translate));
  };

  const create = async (start: boolean) => {
    if (!checkAll()) return;
    setBusy(start ? 'start' : 'draft');
    setBanner(null);
    try {
      let c = await campaignsApi.create(toInput(v));
      if (start) {
        try {
          c = await campaignsApi.action(c.id, 'start');
        } catch (e) {
          notify(errorText(e, translate), { type: 'error' });
        }
      }
      notify(start ? 'campaigns.notification.createdStarted' : 'campaigns.notification.created', { type: 'success', messageArgs: { name: c.name } });
      onSaved(c, true);
    } catch (e) {
      showServer(e);
    } finally {
      setBusy(false);
    }
  };

  const describe = (field: string, value: unknown): string => {
    const locale = translate('campaigns.locale');
    const names = (ids: unknown, list: Array<{ id: number; name?: string; value?: string }>) =>
      (ids as number[]).map((id) => list.find((x) => x.id === id)?.name ?? list.find((x) => x.id === id)?.value ?? `#${id}`).join(', ');
    switch (field) {
      case 'stream':
        return value === '' ? '' : names([value], lookups.streams);
      case 'tags':
        return names(value, lookups.tags);
      case 'contactLists':
        return names(value, lookups.lists);
      case 'sendDuplicates':
      case 'unsubscribeAutoAdd':
        return translate(value ? 'campaigns.review.yes' : 'campaigns.review.no');
      case 'variants':
        return (value as Array<{ name: string; text: string; ratio: string }>).map((x) => `${x.name} (${x.ratio}%): ${x.text}`).join('\n');
      case 'variables':
        return (value as Array<{ name: string; defaultValue: string; missingRule: number }>)
          .map((x) => `{{${x.name}}}: ${translate(x.missingRule === 1 ? 'campaigns.message.variables.useDefault' : 'campaigns.message.variables.skip')}${x.defaultValue ? ` (${x.defaultValue})` : ''}`)
          .join('\n');
      case 'links':
        return (value as Array<{ name: string; domains?: number[]; domain_pool?: number | null; offer?: number | null; expired?: number | null }>)
          .map((x) =>
            translate('campaigns.message.links.review', {
              name: `{{${x.name}}}`,
              where: x.domain_pool ? translate('campaigns.message.links.reviewPool', { id: x.domain_pool }) : translate('campaigns.message.links.reviewDomains', { ids: (x.domains ?? []).map((d) => `#${d}`).join(', ') }),
              offer: x.offer ? translate('campaigns.message.links.reviewOffer', { id: x.offer }) : '',
              expired: x.expired ? translate('campaigns.message.links.reviewExpired', { days: x.expired }) : '',
            }),
          )
          .join('\n');
      case 'senders':
        return (value as Array<{ sender: number; ratio: string }>).map((s) => `${names([s.sender], lookups.senders)} (${s.ratio}%)`).join('\n');
      case 'timezoneMode':
        return translate(`campaigns.schedule.modes.${String(value)}`);
      case 'workingDays':
        return (value as number[]).map((d) => translate(`campaigns.schedule.days.${d}`)).join(', ');
      case 'dateStart':
      case 'dateEnd':
      case 'scheduled':
        return value ? new Date(String(value)).toLocaleString(locale) : '';
      default:
        return String(value ?? '');
    }
  };

  const askToSave = () => {
    if (!checkAll()) return;
    setReview(changes(initial, v, describe));
  };
  const save = async () => {
    if (!campaign) return;
    setBusy('save');
    try {
      const c = await campaignsApi.update(campaign.id, toInput(v));
      notify('campaigns.notification.saved', { type: 'success', messageArgs: { name: c.name } });
      setReview(null);
      onSaved(c, false);
    } catch (e) {
      setReview(null);
      showServer(e);
    } finally {
      setBusy(false);
    }
  };

  // typed-in work is not lost to a stray Escape or backdrop click: once changed, only Cancel or the close button close
  const dirty = JSON.stringify(v) !== JSON.stringify(initial);
  const props = { v, set, errors: shown, lookups, setLookups: (p: Partial<Lookups>) => setExtra((x) => ({ ...x, ...p })) };
  const last = step === STEPS.length - 1;
  const spinner = <CircularProgress size={16} color="inherit" />;

  return (
    <>
      <AppModal
        open={open}
        onClose={onClose}
        size="l"
        dismissible={!busy}
        onlyButtonCloses={dirty}
        icon={<CampaignRoundedIcon />}
        title={translate(campaign ? 'campaigns.wizard.editTitle' : 'campaigns.wizard.title')}
        subtitle={translate('campaigns.wizard.stepOf', { n: step + 1, total: STEPS.length, name: translate(`campaigns.wizard.steps.${current}`) })}
        testId="campaign-wizard"
        actions={
          <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', justifyContent: 'flex-end', width: '100%' }}>
            <Button color="inherit" onClick={step === 0 ? onClose : () => setStep(step - 1)} disabled={!!busy} data-testid="wizard-back" sx={{ mr: 'auto' }}>
              {translate(step === 0 ? 'campaigns.ui.cancel' : 'campaigns.ui.back')}
            </Button>
            {!last && campaign && (
              <Button variant="outlined" onClick={askToSave} disabled={!!busy} data-testid="wizard-save-now">
                {translate('campaigns.wizard.save')}
              </Button>
            )}
            {!last ? (
              <Button variant="contained" onClick={next} data-testid="wizard-next">
                {translate('campaigns.ui.next')}
              </Button>
            ) : campaign ? (
              <Button variant="contained" onClick={askToSave} disabled={!!busy} data-testid="wizard-save">
                {translate('campaigns.wizard.save')}
              </Button>
            ) : (
              <>
                <Button variant="outlined" onClick={() => void create(false)} disabled={!!busy} startIcon={busy === 'draft' ? spinner : undefined} data-testid="wizard-save-draft">
                  {translate('campaigns.wizard.saveDraft')}
                </Button>
                <Button variant="contained" onClick={() => void create(true)} disabled={!!busy} startIcon={busy === 'start' ? spinner : undefined} data-testid="wizard-start">
                  {translate(v.scheduled ? 'campaigns.wizard.schedule' : 'campaigns.wizard.start')}
                </Button>
              </>
            )}
          </Box>
        }
      >
        <Box onKeyDown={enterPicksNotSubmits} data-testid={`wizard-at-${current}`}>
          <Stepper nonLinear activeStep={step} alternativeLabel sx={{ mb: 3, display: { xs: 'none', sm: 'flex' } }}>
            {STEPS.map((s, i) => (
              <MuiStep key={s} completed={i < step || (i <= visited && i !== step && Object.keys(stepErrors(s, v)).length === 0)}>
                <StepButton onClick={() => goto(i)} disabled={i > visited} data-testid={`wizard-step-${s}-button`}>
                  {translate(`campaigns.wizard.steps.${s}`)}
                </StepButton>
              </MuiStep>
            ))}
          </Stepper>
          {banner && (
            <Alert severity="error" sx={{ mb: 2 }} data-testid="wizard-error">
              {banner}
            </Alert>
          )}
          {loaded.loading && !loaded.data ? (
            <Box sx={{ display: 'grid', placeItems: 'center', py: 6 }}>
              <CircularProgress />
            </Box>
          ) : (
            <>
              {current === 'details' && <DetailsStep {...props} />}
              {current === 'audience' && <AudienceStep {...props} saved={campaign ? { id: campaign.id, version: campaign.updatedAt } : undefined} />}
              {current === 'message' && <MessageStep {...props} />}
              {current === 'senders' && <SendersStep {...props} />}
              {current === 'schedule' && <ScheduleStep {...props} />}
              {current === 'settings' && <SettingsStep {...props} />}
            </>
          )}
          {current === 'settings' && !campaign && (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
              {translate('campaigns.wizard.finalHint')}
            </Typography>
          )}
        </Box>
      </AppModal>
      <ChangesReview open={!!review} changes={review ?? []} busy={busy === 'save'} onConfirm={() => void save()} onClose={() => setReview(null)} />
    </>
  );
};
