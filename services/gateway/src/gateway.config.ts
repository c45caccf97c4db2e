import { z } from 'zod';
import { env, loadConfig } from '@switchboard/platform';
import { parseGatewayRoutes } from './proxy/route-table';

/** Environment of the standalone gateway (distributed mode). */
export const gatewayConfigSchema = z.object({
  PORT: env.port(3000),
  HOST: z.string().default('127.0.0.1'),
  /** The auth service's ES256 public key: PEM, or base64 of the PEM. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required'),
  /** One or more NATS URLs, comma separated. */
  NATS_URL: env.list(['nats://127.0.0.1:4222']).refine((l) => l.length > 0, 'at least one NATS URL'),
  /** `auth=http://auth:3001,accounts=http://accounts:3002` */
  GATEWAY_ROUTES: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseGatewayRoutes(v);
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
        return z.NEVER;
      }
    }),
  GATEWAY_PROXY_TIMEOUT_MS: env.int(30_000, 100),
  /** Serve the admin build from here too (optional: a CDN or another web server may serve it instead). */
  ADMIN_DIST_DIR: z.string().optional(),
  /** `false`, or Express's trust proxy value (`loopback`, a CIDR list, a hop count) for the load balancer in front. */
  TRUST_PROXY: z.string().default('false'),
  REALTIME_REPLAY_PER_ACCOUNT: env.int(1000, 0),
  REALTIME_HEARTBEAT_MS: env.int(15_000, 1000),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (e: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig('gateway', gatewayConfigSchema, e);
