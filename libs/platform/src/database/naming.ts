import { DefaultNamingStrategy, type NamingStrategyInterface } from 'typeorm';

const snake = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();

/** Tables and columns in snake_case: `accountId` -> `account_id`, `UserSession` -> `user_session`. */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override tableName(className: string, customName?: string): string {
    return customName ?? snake(className);
  }
  /** An explicit `@Column({ name })` is kept as written; embedded prefixes are snake_cased. */
  override columnName(propertyName: string, customName: string | undefined, prefixes: string[]): string {
    const prefix = prefixes.filter(Boolean).map(snake).join('_');
    const name = customName ?? snake(propertyName);
    return prefix ? `${prefix}_${name}` : name;
  }
  override relationName(propertyName: string): string {
    return snake(propertyName);
  }
  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return snake(`${relationName}_${referencedColumnName}`);
  }
  override joinTableName(firstTableName: string, secondTableName: string, firstPropertyName: string): string {
    return snake(`${firstTableName}_${firstPropertyName.replace(/\./g, '_')}_${secondTableName}`);
  }
  override joinTableColumnName(tableName: string, propertyName: string, columnName?: string): string {
    return snake(`${tableName}_${columnName ?? propertyName}`);
  }
}
