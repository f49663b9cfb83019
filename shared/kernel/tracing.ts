import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './logger';

/**
 * X-Ray traces (Powertools Tracer). Enabled only inside Lambda with active
 * tracing; the local runtime has no daemon, so it stays off there (and the
 * local entry points keep the X-Ray SDK in manual mode, without its
 * process-wide async hook).
 *
 * Outgoing HTTP calls are not captured globally: the only ones are webhook
 * deliveries, whose URLs belong to partners and may carry a token in their
 * query string. A delivery's trace carries its endpoint id instead.
 */
export const tracer = new Tracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: false });

/** An AWS SDK v3 client whose calls appear as subsegments (operation, table or queue; never item contents). */
export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);

/** Indexed annotations on the current trace: ids and names only, never a secret. */
export function annotate(values: Record<string, string>): void {
  if (!tracer.isTracingEnabled()) return;
  for (const [k, v] of Object.entries(values)) tracer.putAnnotation(k, v);
}
