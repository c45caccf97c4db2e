/** Checks the `gCaptchaToken` of the login calls. Embedded mode uses NoCaptchaVerifier; production uses reCAPTCHA. */
export abstract class CaptchaVerifier {
  /** True when the token proves a human (or captcha is off). Never throws for a bad token: a failure is `false`. */
  abstract verify(token: string | undefined, remoteIp: string | null): Promise<boolean>;
}

/** Embedded and dev mode: the console sends a placeholder (spec 7); every value is accepted. */
export class NoCaptchaVerifier extends CaptchaVerifier {
  async verify(): Promise<boolean> {
    return true;
  }
}
