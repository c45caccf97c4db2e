/** Spec 5, errors.client.xss: ` ~ # $ % ^ & * | = ? ; : < > braces brackets backslash. */
export const XSS_CHARACTERS = /[`~#$%^&*|=?;:<>{}[\]\\]/;
export const XSS_MESSAGE = 'errors.client.xss';

export const hasForbiddenCharacters = (s: string): boolean => XSS_CHARACTERS.test(s);
