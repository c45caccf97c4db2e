import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import DownloadRoundedIcon from '@mui/icons-material/DownloadRounded';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import PlayArrowRoundedIcon from '@mui/icons-material/PlayArrowRounded';
import UploadFileRoundedIcon from '@mui/icons-material/UploadFileRounded';
import { Alert, Box, Button, CircularProgress, Divider, Link, Paper, Skeleton, Step, StepLabel, Stepper, Typography } from '@mui/material';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { contactsApi, uploadImport } from '../api';
import { ImportStatus, ImportType, P, PATHS, StandardVariable, STATUS_POLL_MS, type ImportTypeValue } from '../constants';
import { useRealtime } from '../realtime';
import { loadLookups } from '../segments/lookups';
import type { Country, ImportList, ImportPreview, ImportProgress, Variable } from '../types';
import { errorText, fieldErrors, isAbort } from '../widgets/errors';
import { FileDropField, type FileFieldState } from '../widgets/FileDropField';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { useInterval } from '../../../ui/useInterval';
import { guessMapping, mappingEntries, mappingProblems, type Mapping } from './mapping';
import { MappingStep } from './MappingStep';
import { ProgressStep } from './ProgressStep';

const EDITABLE: ReadonlySet<string> = new Set([ImportStatus.Uploaded, ImportStatus.Mapped]);

/** The variables a column may be mapped to: a blacklist import takes the phone and its country only. */
const mappableFor = (type: ImportTypeValue, vars: Variable[]): Variable[] =>
  vars.filter((v) => v.mappable && (type === ImportType.Contacts || v.id === StandardVariable.phone || v.id === StandardVariable.country));

/**
 * The import wizard: (1) the file through the drag-and-drop field (POST multipart answers a preview), (2) columns
 * mapped to variables with the rules of spec 5 and the "ignore first line" toggle, (3) the start and a progress bar
 * fed by `/realtime` (topic imports) and a 5 s status poll, until the list is ready with its counts. `?type=blacklist`
 * imports blocked numbers instead; `?id=` resumes an import (the page keeps it there, so a reload loses nothing).
 */
export const ImportWizardPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const type: ImportTypeValue = params.get('type') === ImportType.Blacklist ? ImportType.Blacklist : ImportType.Contacts;
  const resumeId = Number(params.get('id')) || null;

  const [variables, setVariables] = useState<Variable[]>([]);
  const [countries, setCountries] = useState<Country[]>([]);
  const [step, setStep] = useState(0);
  const [fileState, setFileState] = useState<FileFieldState>('empty');
  const [file, setFile] = useState<{ name: string; size: number } | null>(null);
  const [transfer, setTransfer] = useState(0);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [imp, setImp] = useState<ImportList | null>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [name, setName] = useState('');
  const [mapping, setMapping] = useState<Mapping>({});
  const [ignoreFirstLine, setIgnoreFirstLine] = useState(true);
  const [defaultCountry, setDefaultCountry] = useState<string | null>(null);
  const [showProblems, setShowProblems] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | undefined>();
  const [starting, setStarting] = useState(false);
  const [resuming, setResuming] = useState(!!resumeId);
  const upload = useRef<AbortController | null>(null);
  /** The preview whose mapping was guessed (a guess is made once per file). */
  const guessed = useRef<ImportPreview | null>(null);

  useEffect(() => {
    void loadLookups().then((l) => {
      setCountries(l.countries);
    });
    contactsApi
      .variables()
      .then((r) => setVariables(r.items))
      .catch((e: unknown) => notify(errorText(e, translate), { type: 'error' }));
  }, [notify, translate]);

  const remember = useCallback(
    (id: number | null) => {
      const next = new URLSearchParams();
      if (type === ImportType.Blacklist) next.set('type', type);
      if (id) next.set('id', String(id));
      setParams(next, { replace: true });
    },
    [setParams, type],
  );

  /** A fresh upload (or a resumed one) with its preview: the mapping starts from a guess or from what was saved. */
  const adopt = useCallback(
    (answer: ImportList & { preview: ImportPreview }, vars: Variable[]) => {
      setImp(answer);
      setPreview(answer.preview);
      setFile({ name: answer.fileName, size: answer.fileSize });
      setFileState('uploaded');
      setName(answer.name);
      setDefaultCountry(answer.defaultCountry);
      if (answer.mapping?.length) {
        setMapping(Object.fromEntries(answer.mapping.map((m) => [m.column, m.variable])));
        setIgnoreFirstLine(answer.ignoreFirstLine);
      } else if (vars.length) {
        guessed.current = answer.preview;
        const guess = guessMapping(answer.preview, mappableFor(type, vars));
        setMapping(guess.mapping);
        setIgnoreFirstLine(guess.header);
      }
    },
    [type],
  );

  // variables that arrive after the file: the mapping is guessed then, once
  useEffect(() => {
    if (!preview || !variables.length || guessed.current === preview || imp?.mapping?.length) return;
    guessed.current = preview;
    const guess = guessMapping(preview, mappableFor(type, variables));
    setMapping(guess.mapping);
    setIgnoreFirstLine(guess.header);
  }, [preview, variables, imp, type]);

  // leaving the page cancels an upload under way
  useEffect(() => () => upload.current?.abort(), []);

  // resume ?id=: an editable import opens at the mapping, a started one at its progress
  useEffect(() => {
    if (!resumeId || imp || !variables.length) return;
    contactsApi
      .importList(resumeId)
      .then((answer) => {
        adopt(answer, variables);
        setStep(EDITABLE.has(answer.status) ? 1 : 2);
      })
      .catch(() => remember(null))
      .finally(() => setResuming(false));
  }, [resumeId, imp, variables, adopt, remember]);

  const discard = (current: ImportList | null) => {
    if (current && EDITABLE.has(current.status)) void contactsApi.deleteImport(current.id).catch(() => undefined);
  };

  const choose = async (f: File) => {
    upload.current?.abort();
    discard(imp);
    const ctrl = new AbortController();
    upload.current = ctrl;
    setImp(null);
    setPreview(null);
    setMapping({});
    setUploadError(null);
    setTransfer(0);
    setFile({ name: f.name, size: f.size });
    setFileState('chosen');
    try {
      const answer = await uploadImport(f, { type }, setTransfer, ctrl.signal);
      adopt(answer, variables);
      setShowProblems(false);
      setServerError(null);
      remember(answer.id);
    } catch (e) {
      if (isAbort(e)) return;
      setFileState('empty');
      setFile(null);
      setUploadError(fieldErrors(e, translate).file ?? errorText(e, translate));
    } finally {
      if (upload.current === ctrl) upload.current = null;
    }
  };

  const clear = () => {
    upload.current?.abort();
    discard(imp);
    setImp(null);
    setPreview(null);
    setFile(null);
    setFileState('empty');
    setUploadError(null);
    remember(null);
  };

  const problems = useMemo(() => mappingProblems(mapping), [mapping]);

  const start = async () => {
    if (!imp) return;
    setShowProblems(true);
    setServerError(null);
    const emptyName = type === ImportType.Contacts && !name.trim();
    setNameError(emptyName ? translate('contacts.errors.client.required') : undefined);
    if (emptyName || problems.phoneMissing || problems.duplicates.size > 0) return;
    setStarting(true);
    try {
      const started = await contactsApi.updateImport(imp.id, {
        name: type === ImportType.Contacts ? name.trim() : undefined,
        mapping: mappingEntries(mapping),
        ignoreFirstLine,
        defaultCountry,
        start: true,
      });
      setImp(started);
      setStep(2);
    } catch (e) {
      const fields = fieldErrors(e, translate);
      if (fields.name) setNameError(fields.name);
      setServerError(errorText(e, translate));
    } finally {
      setStarting(false);
    }
  };

  const running = step === 2 && imp?.status === ImportStatus.Processing;
  const refresh = useCallback(async () => {
    if (!imp) return;
    try {
      const fresh = await contactsApi.importList(imp.id);
      setImp(fresh);
    } catch (_e) {
      // the next poll or frame tries again
    }
  }, [imp]);

  useRealtime(
    ['imports'],
    {
      onFrame: (f) => {
        const d = f.data as unknown as ImportProgress;
        if (f.type !== 'import_list.progress' || !imp || d.id !== imp.id) return;
        setImp((cur) => (cur && cur.id === d.id ? { ...cur, ...d, contactList: d.contactList ?? cur.contactList, error: d.error } : cur));
        if (d.status !== ImportStatus.Processing) void refresh();
      },
      onResync: () => void refresh(),
    },
    step === 2,
  );
  useInterval(() => void refresh(), STATUS_POLL_MS, running);

  const another = () => {
    setImp(null);
    setPreview(null);
    setFile(null);
    setFileState('empty');
    setMapping({});
    setShowProblems(false);
    setServerError(null);
    setStep(0);
    remember(null);
  };

  const open = () => {
    if (!imp) return;
    if (imp.type === ImportType.Blacklist) navigate(PATHS.blacklist);
    else navigate(imp.contactList ? `${PATHS.lists}?open=${imp.contactList}` : PATHS.lists);
  };

  const steps = ['contacts.imports.steps.upload', 'contacts.imports.steps.map', 'contacts.imports.steps.import'];
  const back = type === ImportType.Blacklist ? PATHS.blacklist : PATHS.lists;
  const title = translate(type === ImportType.Blacklist ? 'contacts.imports.titleBlacklist' : 'contacts.imports.title');

  return (
    <Box sx={{ maxWidth: 1200 }}>
      <PageHeading
        title={title}
        subtitle={translate(type === ImportType.Blacklist ? 'contacts.imports.subtitleBlacklist' : 'contacts.imports.subtitle')}
        icon={<UploadFileRoundedIcon />}
        actions={
          <Button color="inherit" startIcon={<ArrowBackRoundedIcon />} onClick={() => navigate(back)}>
            {translate(type === ImportType.Blacklist ? 'contacts.blacklist.title' : 'contacts.lists.title')}
          </Button>
        }
      />
      <Paper sx={{ overflow: 'hidden' }} data-testid="import-wizard">
        <Box sx={{ px: 3, py: 2.5, bgcolor: '#fcfcfd' }}>
          <Stepper activeStep={step} alternativeLabel>
            {steps.map((s) => (
              <Step key={s}>
                <StepLabel>{translate(s)}</StepLabel>
              </Step>
            ))}
          </Stepper>
        </Box>
        <Divider />
        <Box sx={{ p: 3 }}>
          {resuming ? (
            <Skeleton variant="rounded" height={200} />
          ) : step === 0 ? (
            <Box sx={{ maxWidth: 720, mx: 'auto', display: 'grid', gap: 2.5 }}>
              <FileDropField state={fileState} file={file} progress={transfer} error={uploadError} onSelect={(f) => void choose(f)} onClear={clear} testId="import-file" />
              <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start', p: 2, bgcolor: '#f9fafb', borderRadius: '12px' }}>
                <InfoOutlinedIcon fontSize="small" sx={{ color: 'text.secondary', mt: 0.25 }} />
                <Box>
                  <Typography variant="body2">{translate(type === ImportType.Blacklist ? 'contacts.imports.fileHelpBlacklist' : 'contacts.imports.fileHelp')}</Typography>
                  <Link component="button" type="button" variant="body2" sx={{ mt: 0.75, display: 'inline-flex', alignItems: 'center', gap: 0.5, fontWeight: 600 }} onClick={() => void contactsApi.downloadExample().catch((e: unknown) => notify(errorText(e, translate), { type: 'error' }))}>
                    <DownloadRoundedIcon fontSize="small" />
                    {translate('contacts.imports.example')}
                  </Link>
                </Box>
              </Box>
            </Box>
          ) : step === 1 && imp && preview ? (
            <MappingStep
              type={type}
              preview={preview}
              variables={variables}
              countries={countries}
              name={name}
              onName={(v) => {
                setName(v);
                setNameError(undefined);
              }}
              mapping={mapping}
              onMapping={(m) => {
                setMapping(m);
                setServerError(null);
              }}
              ignoreFirstLine={ignoreFirstLine}
              onIgnoreFirstLine={setIgnoreFirstLine}
              defaultCountry={defaultCountry}
              onDefaultCountry={setDefaultCountry}
              problems={problems}
              showProblems={showProblems}
              serverError={serverError}
              nameError={nameError}
              disabled={starting}
            />
          ) : imp ? (
            <ProgressStep imp={imp} onOpen={open} onAnother={another} />
          ) : (
            <Alert severity="error">{translate('contacts.errors.generic')}</Alert>
          )}
        </Box>
        {step < 2 && !resuming && (
          <>
            <Divider />
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: 3, py: 2 }}>
              {step === 1 && (
                <Button color="inherit" startIcon={<ArrowBackRoundedIcon />} onClick={() => setStep(0)} disabled={starting}>
                  {translate('contacts.actions.back')}
                </Button>
              )}
              <Box sx={{ flex: 1 }} />
              {step === 0 ? (
                <Button variant="contained" disabled={fileState !== 'uploaded' || !imp} onClick={() => setStep(1)} data-testid="import-next">
                  {translate('contacts.actions.next')}
                </Button>
              ) : (
                <GatedButton
                  permission={type === ImportType.Blacklist ? P.BlockAddEdit : P.ListAdd}
                  variant="contained"
                  startIcon={starting ? <CircularProgress size={16} color="inherit" /> : <PlayArrowRoundedIcon />}
                  disabled={starting}
                  onClick={() => void start()}
                  data-testid="import-start"
                >
                  {translate('contacts.imports.startImport')}
                </GatedButton>
              )}
            </Box>
          </>
        )}
      </Paper>
    </Box>
  );
};
