import type { Lookups } from '../lookups';
import type { WizardValues } from '../model';

export interface StepProps {
  v: WizardValues;
  set: (patch: Partial<WizardValues>) => void;
  /** Translated errors of the step's fields, shown once the user tried to go on. */
  errors: Record<string, string>;
  lookups: Lookups;
  setLookups: (patch: Partial<Lookups>) => void;
  /** Editing a campaign that has started: only the ratios may change (spec 4). */
  ratiosOnly?: boolean;
}
