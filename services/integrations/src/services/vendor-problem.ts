import { ErrorCode } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import type { Connector } from '../connectors/connector';
import { VendorAddressRefused, VendorAuthRejected, VendorRateLimited, VendorUnavailable, type VendorError } from '../connectors/http';

/**
 * A vendor failure during an API call, as the caller sees it (spec 8: "invalid integration token" 0x15 when the
 * vendor refuses our credentials). The message names the vendor and the kind of failure, never the vendor's body.
 */
export function vendorProblem(connector: Connector, e: VendorError): AppError {
  if (e instanceof VendorAuthRejected || e.status === 403) return new AppError(400, ErrorCode.InvalidIntegrationToken, `${connector.name} refused the integration's credentials: invalid token`);
  if (e instanceof VendorRateLimited) return new AppError(429, ErrorCode.TooManyRequests, `${connector.name} is rate limiting this account: try again in ${Math.ceil(e.retryAfterMs / 1000)} s`);
  if (e instanceof VendorAddressRefused) return new AppError(502, ErrorCode.General, `${connector.name} was not called: its host ${e.message.replace(/^.* refused: /, '')}`);
  if (e instanceof VendorUnavailable) return new AppError(503, ErrorCode.General, `${connector.name} could not be reached: try again later`);
  return new AppError(502, ErrorCode.General, `${connector.name} refused the request (HTTP ${e.status ?? '?'})`);
}
