/** The runtime configuration: ./config.json beside index.html, so one build serves every deployment. */
export interface ConsoleConfig {
  /** `/v1` (same origin) or `https://…/v1`. */
  apiBaseUrl: string;
  cognito: {
    region: string;
    userPoolId: string;
    clientId: string;
    /** `/cognito/` (the local stack's same-origin proxy) or `https://cognito-idp.<region>.amazonaws.com/`. */
    endpoint: string;
  };
}

let current: ConsoleConfig | undefined;

export async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch('./config.json', { cache: 'no-store', headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`The console's configuration (config.json) could not be read: HTTP ${res.status}.`);
  const c = (await res.json()) as Partial<ConsoleConfig>;
  if (typeof c.apiBaseUrl !== 'string' || typeof c.cognito?.clientId !== 'string' || typeof c.cognito.endpoint !== 'string') {
    throw new Error("The console's configuration (config.json) lacks apiBaseUrl or cognito.clientId and cognito.endpoint.");
  }
  current = { apiBaseUrl: c.apiBaseUrl.replace(/\/+$/, ''), cognito: c.cognito };
  return current;
}

export function config(): ConsoleConfig {
  if (!current) throw new Error('configuration not loaded');
  return current;
}
