export * from './captcha-verifier';
export * from './recaptcha-verifier';
