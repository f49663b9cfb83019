import * as z from 'zod';
import { ENVS } from '../kernel/tenant';
import { ROLES } from './roles';

export const Role = z.enum(ROLES).meta({ id: 'Role', description: 'Console role', dataClass: 'public' });
export const Environment = z
  .enum(ENVS)
  .meta({ id: 'Environment', description: 'live = production (sk_live_ keys), test = sandbox (sk_test_ keys)', dataClass: 'public' });
