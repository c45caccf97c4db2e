import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface StoredMail extends MailMessage {
  sentAt: string;
}

/** Email out: a dev mailbox in embedded mode, SMTP in production. */
export abstract class Mailer {
  abstract send(message: MailMessage): Promise<void>;
}

/** Keeps the latest messages in memory, newest first; served at GET /api/dev/mailbox in embedded mode only. */
export class DevMailbox extends Mailer {
  private readonly messages: StoredMail[] = [];
  constructor(private readonly capacity = 200) {
    super();
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`DevMailbox capacity must be a positive integer, got ${capacity}`);
  }
  async send(message: MailMessage): Promise<void> {
    this.messages.unshift({ ...message, sentAt: new Date().toISOString() });
    if (this.messages.length > this.capacity) this.messages.length = this.capacity;
  }
  /** Copies, newest first: a caller cannot change what the mailbox holds. */
  list(limit = 50): StoredMail[] {
    return this.messages.slice(0, Math.max(0, limit)).map((m) => ({ ...m }));
  }
}

export interface SmtpOptions {
  url: string;
  from: string;
}

export class SmtpMailer extends Mailer {
  private transporter: Transporter | null = null;
  constructor(private readonly options: SmtpOptions) {
    super();
  }
  async send(message: MailMessage): Promise<void> {
    if (!this.transporter) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily: embedded mode never needs it
      const nodemailer = require('nodemailer') as typeof import('nodemailer');
      this.transporter = nodemailer.createTransport(this.options.url);
    }
    await this.transporter.sendMail({ from: this.options.from, ...message });
  }
}
