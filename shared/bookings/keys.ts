import type { Env } from '../kernel/tenant';

/**
 * Keys of bookings and what they rely on in the data table (docs/architecture.md, "Data model and access patterns",
 * rows "booking by number" to "customer-reference key").
 */
export const bookingKeys = {
  booking: (bookingNumber: string) => ({ pk: `BOOKING#${bookingNumber}`, sk: 'BOOKING' }),
  /**
   * A partner's bookings in one environment, newest first: one row per booking in the data table (what the
   * list shows and filters on), put by every transaction that changes the booking, so the list reads its
   * own writes (strongly consistent), which an index would not.
   */
  listPartition: (partnerId: string, env: Env) => `BOOKINGS#${partnerId}#${env}`,
  listRow: (partnerId: string, env: Env, createdAt: string, bookingNumber: string) => ({
    pk: bookingKeys.listPartition(partnerId, env),
    sk: `${createdAt}#${bookingNumber}`,
  }),
  /** Sort-key bounds of bookings created between two instants, inclusive. */
  createdRange: (from: string, to: string) => ({ from, to: `${to}#~` }),
  /** gsi1, before the list rows: a partner's bookings (what data:list-rows moves to rows, and takes out of the index). */
  legacyIndexPartition: (partnerId: string, env: Env) => `BOOKINGS#${partnerId}#${env}`,
  /** gsi2 (sparse): CONFIRMED bookings by travel date, for the completion job; removed when they leave CONFIRMED. */
  byTravelDatePartition: (travelDate: string) => `BKDATE#${travelDate}`,
  byTravelDate: (travelDate: string, createdAt: string, bookingNumber: string) => ({
    gsi2pk: bookingKeys.byTravelDatePartition(travelDate),
    gsi2sk: `${createdAt}#${bookingNumber}`,
  }),
  /** partner_reference is unique per partner and environment. */
  partnerReference: (partnerId: string, env: Env, reference: string) => ({ pk: `PREF#${partnerId}#${env}#${reference}`, sk: 'PREF' }),
  /** The partner's key for pseudonymizing customer references. */
  customerRefKey: (partnerId: string) => ({ pk: `TENANT#${partnerId}`, sk: 'CUSTOMER_REF_KEY' }),
  /** The public payment-confirmation keys (JWK) of a partner and environment, by kid. */
  paymentKey: (partnerId: string, env: Env, kid: string) => ({ pk: `PAYKEYS#${partnerId}#${env}`, sk: kid }),
};

/** The bookings' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts). */
export const bookingPartitions = {
  booking: 'BOOKING#*',
  rows: 'BOOKINGS#*',
  reference: 'PREF#*',
  customerRefKey: 'TENANT#*',
  paymentKeys: 'PAYKEYS#*',
};
