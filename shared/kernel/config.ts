import * as z from 'zod';

/**
 * Configuration comes from the environment only (set by the CDK stack or the
 * local runtime), is validated with zod and read once per schema.
 */
const cache = new Map<z.ZodType, unknown>();

export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  if (env === process.env && cache.has(schema)) return cache.get(schema) as z.infer<S>;
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
    // Names only: values may be secrets.
    throw new Error(`Invalid service configuration: missing or invalid ${fields}`);
  }
  if (env === process.env) cache.set(schema, parsed.data);
  return parsed.data;
}

/** Flags of the service; defaults are the production values. */
export const serviceConfig = z.object({
  SERVICE_STAGE: z.enum(['local', 'aws']).default('aws'),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
});
export function service() {
  return loadConfig(serviceConfig);
}
