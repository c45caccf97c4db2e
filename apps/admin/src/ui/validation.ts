/** Spec 5: validators answer a translation key, or undefined when the value is fine. */
export type Validator = (value: string) => string | undefined;

export const required: Validator = (value) => (value.trim() === '' ? 'errors.client.required' : undefined);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const email: Validator = (value) => (value.trim() !== '' && !EMAIL.test(value.trim()) ? 'errors.client.email' : undefined);

export const validate = (value: string, ...validators: Validator[]): string | undefined => {
  for (const v of validators) {
    const error = v(value);
    if (error) return error;
  }
  return undefined;
};
