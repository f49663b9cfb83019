import { describe, expect, it } from 'vitest';
import { issuerIdentity } from '../../shared/settlements/config';

const ENV = {
  ISSUER_NAME: 'Voyages Atlas SA',
  ISSUER_ADDRESS: '3 rue Ibn Batouta, Rabat',
  ISSUER_ICE: '002222333000044',
  ISSUER_IF: '40404040',
  ISSUER_RC: 'Rabat 98765',
  ISSUER_BANK: 'Banque Populaire',
  ISSUER_RIB: '190810211112222333344455',
};

describe("the issuer's identity read by the functions that issue invoices", () => {
  it('has no defaults: a function without it fails, naming every missing variable and no value', () => {
    expect(() => issuerIdentity({})).toThrow(
      'Invalid service configuration: missing or invalid ISSUER_NAME, ISSUER_ADDRESS, ISSUER_ICE, ISSUER_IF, ISSUER_RC, ISSUER_BANK, ISSUER_RIB',
    );
    const { ISSUER_RIB: _, ...noRib } = ENV;
    expect(() => issuerIdentity(noRib)).toThrow(/missing or invalid ISSUER_RIB$/);
  });

  it('refuses an ICE that is not 15 digits, a RIB that is not 24, an IF that is not digits, a blank name', () => {
    expect(() => issuerIdentity({ ...ENV, ISSUER_ICE: '00222233300004' })).toThrow(/invalid ISSUER_ICE$/);
    expect(() => issuerIdentity({ ...ENV, ISSUER_RIB: '190 810 21111222233334444' })).toThrow(/invalid ISSUER_RIB$/);
    expect(() => issuerIdentity({ ...ENV, ISSUER_IF: 'IF-40' })).toThrow(/invalid ISSUER_IF$/);
    expect(() => issuerIdentity({ ...ENV, ISSUER_NAME: '  ' })).toThrow(/invalid ISSUER_NAME$/);
    expect(() => issuerIdentity({ ...ENV, ISSUER_SPECIMEN: 'yes' })).toThrow(/invalid ISSUER_SPECIMEN$/);
    // Names only: values may be secrets.
    expect(() => issuerIdentity({ ...ENV, ISSUER_ICE: 'SECRET-ICE' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('SECRET') }));
  });

  it('is frozen on a settlement as configured, marked specimen only with ISSUER_SPECIMEN=true', () => {
    const identity = {
      name: 'Voyages Atlas SA',
      address: '3 rue Ibn Batouta, Rabat',
      ice: '002222333000044',
      if: '40404040',
      rc: 'Rabat 98765',
      bank: 'Banque Populaire',
      rib: '190810211112222333344455',
    };
    expect(issuerIdentity(ENV)).toEqual(identity);
    expect(issuerIdentity({ ...ENV, ISSUER_SPECIMEN: 'false' })).toEqual(identity);
    expect(issuerIdentity({ ...ENV, ISSUER_SPECIMEN: 'true' })).toEqual({ ...identity, specimen: true });
  });
});
