import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../scripts/admin/commands';

describe("the admin CLI's partner names (issue 41, 4)", () => {
  it('partner:create --name and partner:set-legal --legal-name refuse control and bidirectional characters', () => {
    const create = COMMANDS['partner:create']!.flags;
    const legal = COMMANDS['partner:set-legal']!.flags;
    const partner = '7f734a3d-0000-4000-8000-000000000001';
    expect(create.safeParse({ name: 'Banque Populaire du Maroc' }).success).toBe(true);
    expect(legal.safeParse({ partner, 'legal-name': 'Banque Populaire SA' }).success).toBe(true);
    for (const bad of ['Demo\u202eknaB', 'Demo\u2066Bank\u2069', 'Demo\u200fBank', 'Demo\nBank', 'Demo\tBank', 'Demo\u0000Bank', 'Demo\u061cBank']) {
      expect(create.safeParse({ name: bad }).success, JSON.stringify(bad)).toBe(false);
      expect(legal.safeParse({ partner, 'legal-name': bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
