import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError } from '@switchboard/platform';

/** A route id: digits, else 404 (an id that cannot exist is not found, like another account's). */
@Injectable()
export class IdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !/^[1-9]\d{0,17}$/.test(value)) throw AppError.notFound();
    return value;
  }
}
