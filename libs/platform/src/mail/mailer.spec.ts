import { DevMailbox } from './mailer';

const mail = (n: number) => ({ to: `user${n}@example.com`, subject: `PIN ${n}`, text: `Your code is ${n}` });

describe('DevMailbox', () => {
  it('keeps messages newest first with the time they were sent', async () => {
    const box = new DevMailbox();
    await box.send(mail(1));
    await box.send(mail(2));
    const list = box.list();
    expect(list.map((m) => m.subject)).toEqual(['PIN 2', 'PIN 1']);
    expect(new Date(list[0].sentAt).toString()).not.toBe('Invalid Date');
  });

  it('keeps at most its capacity, dropping the oldest', async () => {
    const box = new DevMailbox(3);
    for (let i = 1; i <= 5; i++) await box.send(mail(i));
    expect(box.list(10).map((m) => m.subject)).toEqual(['PIN 5', 'PIN 4', 'PIN 3']);
  });

  it('lists up to the limit asked', async () => {
    const box = new DevMailbox();
    for (let i = 1; i <= 60; i++) await box.send(mail(i));
    expect(box.list()).toHaveLength(50);
    expect(box.list(2).map((m) => m.subject)).toEqual(['PIN 60', 'PIN 59']);
  });

  it('is not changed by changes to a listed message or to the message sent', async () => {
    const box = new DevMailbox();
    const m = mail(1);
    await box.send(m);
    m.subject = 'changed';
    box.list()[0].text = 'changed';
    expect(box.list()[0]).toMatchObject({ subject: 'PIN 1', text: 'Your code is 1' });
  });
});
