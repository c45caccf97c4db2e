import { X } from '@switchboard/contracts';
console.log('X', X);
