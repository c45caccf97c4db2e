import { AppError } from './app-error';

describe('AppError', () => {
  it('renders { code, message, status } and violations only when there are some', () => {
    expect(new AppError(402, '0x41', 'payment required').toBody()).toEqual({ code: '0x41', message: 'payment required', status: 402 });
    expect(AppError.validation([{ propertyPath: 'phone', message: 'invalid', code: 'isPhone' }]).toBody()).toEqual({
      code: '0x1',
      message: 'request validation failed',
      status: 400,
      violations: [{ propertyPath: 'phone', message: 'invalid', code: 'isPhone' }],
    });
  });

  it('has helpers with the spec codes and statuses', () => {
    expect(AppError.notFound('stream').toBody()).toEqual({ code: 'NOT_FOUND', message: 'stream not found', status: 404 });
    expect(AppError.forbidden().toBody()).toMatchObject({ code: 'NO_PERMISSIONS', status: 403 });
    expect(AppError.unauthorized().toBody()).toMatchObject({ code: '0x11', status: 401 });
    expect(AppError.conflict('taken').toBody()).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(AppError.tooMany('slow down', '0x31').toBody()).toEqual({ code: '0x31', message: 'slow down', status: 429 });
  });

  it('is an Error with a stack', () => {
    const e = AppError.notFound();
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('AppError');
    expect(e.stack).toContain('AppError');
  });
});
