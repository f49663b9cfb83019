import { fileRoutes } from '../../shared/files/routes';
import { getFile } from '../../shared/files/upload';
import { fileView } from '../../shared/files/views';
import { route } from '../../shared/http/route';

export const handler = route(fileRoutes.getFile, async ({ tenant, params }) => ({ body: fileView(await getFile(tenant, params.id)) }));
