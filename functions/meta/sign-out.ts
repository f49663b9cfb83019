import { accessStore } from '../../shared/access/store';
import { route } from '../../shared/http/route';
import { metaRoutes } from '../../shared/meta/routes';

export const handler = route(metaRoutes.signOut, async ({ principal }) => ({
  body: { member_id: principal.memberId, sessions_ended_at: await accessStore.endSessions(principal.partnerId, principal.memberId, principal.sessionId) },
}));
