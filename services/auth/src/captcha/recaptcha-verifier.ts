import { Logger } from '@nestjs/common';
import { CaptchaVerifier } from './captcha-verifier';

export const GOOGLE_SITEVERIFY_URL = 'https://www.google.com/recaptcha/api/siteverify';

export interface RecaptchaOptions {
  secret: string;
  /** The siteverify endpoint; configurable for tests and for recaptcha.net. */
  siteverifyUrl?: string;
  /** reCAPTCHA v3 score threshold (0..1); answers without a score (v2) only need `success`. Default 0.5. */
  minScore?: number;
  /** The console executes the captcha with action `submit` (spec 7); a different action is refused. Unset: not checked. */
  expectedAction?: string;
  /** Allowed hostnames; empty: not checked. */
  hostnames?: string[];
  timeoutMs?: number;
}

interface SiteverifyAnswer {
  success?: boolean;
  score?: number;
  action?: string;
  hostname?: string;
  'error-codes'?: string[];
}

/**
 * Google reCAPTCHA: POSTs `secret`, `response` and `remoteip` form-encoded to siteverify and reads its JSON answer.
 * Fails closed: a network error, a timeout or an unexpected answer refuses the login.
 */
export class RecaptchaVerifier extends CaptchaVerifier {
  private readonly logger = new Logger('RecaptchaVerifier');
  constructor(private readonly options: RecaptchaOptions) {
    super();
    if (!options.secret) throw new Error('RecaptchaVerifier needs a secret');
  }

  async verify(token: string | undefined, remoteIp: string | null): Promise<boolean> {
    if (!token) return false;
    const form = new URLSearchParams({ secret: this.options.secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let answer: SiteverifyAnswer;
    try {
      const res = await fetch(this.options.siteverifyUrl ?? GOOGLE_SITEVERIFY_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
      if (!res.ok) {
        this.logger.warn(`siteverify answered HTTP ${res.status}`);
        return false;
      }
      answer = (await res.json()) as SiteverifyAnswer;
    } catch (e) {
      this.logger.warn(`siteverify failed: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
    if (answer.success !== true) return false;
    if (typeof answer.score === 'number' && answer.score < (this.options.minScore ?? 0.5)) return false;
    if (this.options.expectedAction && answer.action !== undefined && answer.action !== this.options.expectedAction) return false;
    if (this.options.hostnames?.length && (!answer.hostname || !this.options.hostnames.includes(answer.hostname))) return false;
    return true;
  }
}
