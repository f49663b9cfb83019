/** The runtime configuration: ./config.json beside index.html, so one build serves every deployment. */
export interface ConsoleConfig {
  /** The API's `/v1`, on its own origin (`https://<id>.execute-api.<region>.amazonaws.com/v1`; locally `http://127.0.0.1:<PORT>/v1`). */
  apiBaseUrl: string;
  cognito: {
    region: string;
    userPoolId: string;
    clientId: string;
    /** `https://cognito-idp.<region>.amazonaws.com/` (locally `http://127.0.0.1:<port>/cognito/`, another origin too). */
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
