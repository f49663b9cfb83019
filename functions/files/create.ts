import { fileRoutes } from '../../shared/files/routes';
import { createUpload } from '../../shared/files/upload';
import { createdFileView } from '../../shared/files/views';
import { route } from '../../shared/http/route';

export const handler = route(fileRoutes.createFile, async ({ tenant, body }) => ({ body: createdFileView(await createUpload(tenant, body)) }));
