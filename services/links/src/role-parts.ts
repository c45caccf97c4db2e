import type { Provider, Type } from '@nestjs/common';

/** What a role adds to the links module: its controllers and providers (a provider both roles list is registered once). */
export interface LinksRoleParts {
  controllers: Type<unknown>[];
  providers: Provider[];
}
