import { createContext, useContext } from 'react';
import type { Me } from './types';

/** The signed-in member as GET /me answers it: role, scopes, partner, environment, rate limit. */
export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in shell');
  return me;
}

/** Whether the member's role grants a scope. Actions the role lacks are hidden; the API refuses them anyway. */
export function useCan() {
  const me = useMe();
  const scopes = new Set(me.scopes);
  return (scope: string) => scopes.has(scope);
}
