export { default as en, type Messages } from './en';
export { default as ru } from './ru';
