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

/**
 * Why a service of the console did not answer, in words that say what happened and what fixes it. The
 * configuration is read again: a service that moved since the page was opened (a new deployment, a local stack
 * restarted on other ports or with a new user pool) answers at the address the new configuration names, which a
 * reload loads. Neither the configuration nor the service answering: the service itself is down or restarting.
 */
export async function unreachable(service: string): Promise<string> {
  let fresh: unknown;
  try {
    const res = await fetch('./config.json', { cache: 'no-store', headers: { accept: 'application/json' } });
    fresh = res.ok ? await res.json() : undefined;
  } catch {
    fresh = undefined;
  }
  if (fresh === undefined)
    return `${service} and the console's own server do not answer: the service (on your machine, the local stack) is stopped or restarting, or this computer is offline. Reload the page once it is back.`;
  const moved =
    JSON.stringify({ apiBaseUrl: String((fresh as ConsoleConfig).apiBaseUrl ?? '').replace(/\/+$/, ''), cognito: (fresh as ConsoleConfig).cognito }) !==
    JSON.stringify(current);
  return moved
    ? `${service} moved since this page was opened (the service was redeployed, or the local stack restarted): this page still calls its old address. Reload the page, then sign in.`
    : `${service} did not answer: it may have restarted since this page was opened (on your machine, the local stack). Reload the page; if it still does not answer, the service is down.`;
}
