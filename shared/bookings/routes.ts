import { catalogPartitions } from '../catalog/keys';
import { type DynamoUse, dynamoLine } from '../db/grants';
import { eventPartitions } from '../events/keys';
import { defineRoutes } from '../http/route-def';
import { EmptyBody } from '../http/schemas';
import { quotePartitions } from '../quotes/keys';
import { settlementPartitions } from '../settlements/keys';
import { webhookPartitions } from '../webhooks/keys';
import { bookingPartitions } from './keys';
import { Booking, BookingListQuery, BookingNumberParams, BookingPage, CancelBookingBody, CancellationQuote, CreateBookingBody } from './schemas';

/**
 * What a cancellation does (shared/bookings/cancel.ts), by the partner or the service: the booking and its row, the
 * seats freed and the slot's sell-out marker removed, its ledger line (the month's DRAFT opened first), its event.
 */
const CANCELLATION: DynamoUse = {
  data: {
    GetItem: [bookingPartitions.booking, settlementPartitions.settlement],
    UpdateItem: [bookingPartitions.booking, catalogPartitions.inventory, settlementPartitions.ledger],
    PutItem: [bookingPartitions.rows, settlementPartitions.settlement, settlementPartitions.ledger, eventPartitions.events],
    DeleteItem: [catalogPartitions.unavailable],
  },
};

/** Bookings: create from a quote with the bank's signed payment confirmation, read, cancel. */
export const bookingRoutes = defineRoutes({
  createBooking: {
    method: 'POST',
    path: '/v1/bookings',
    handler: 'functions/bookings/create.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Bookings',
    summary: "Book a quote with the bank's signed payment confirmation",
    description:
      'Status goes straight to CONFIRMED and booking.confirmed is emitted. 409 on conflicts (quote expired or already booked, duplicate partner_reference), 422 when the slot is no longer bookable.',
    request: { body: CreateBookingBody },
    examples: {
      request: {
        quote_id: '91b97712-e026-403c-927d-3719fa336bd7',
        partner_reference: 'BANK-2026-000123',
        customer_reference: 'customer-8812',
        contact: { first_name: 'Amina', last_name: 'El Idrissi', email: 'amina@example.com', phone: '+212 600 000 000' },
        travelers: [
          { first_name: 'Amina', last_name: 'El Idrissi' },
          { first_name: 'Youssef', last_name: 'El Idrissi' },
        ],
        payment_confirmation: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImJhbmsta2V5LTEifQ.eyJxdW90ZV9pZCI6Ijkx.c2lnbmF0dXJl',
      },
    },
    errors: [
      'payment.confirmation.malformed',
      'booking.quote.not_found',
      'booking.quote.expired',
      'booking.quote.already_booked',
      'booking.partner_reference.duplicate',
      'booking.slot.contended',
      'booking.travelers.mismatch',
      'booking.slot.unavailable',
      'payment.key.unknown',
      'payment.signature.invalid',
      'payment.quote.mismatch',
      'payment.amount.mismatch',
    ],
    responses: { 201: { description: 'The booking.', schema: Booking } },
    sendsMail: true,
    publishesEvents: true,
    /*
     * Reads the quote, the payment key, the rate pack, the month's settlement and the partner's customer-reference key
     * (created by its first booking), then commits the seats (INV#), the quote's use, the partner_reference, the
     * booking, its list row, its ledger line and its event; a sell-out is announced (its marker UNAV#, the guard on
     * the seats, one event per subscriber with its once-marker, the quotes open on the slot from gsi2).
     */
    dynamo: {
      data: {
        GetItem: [
          quotePartitions.quote,
          bookingPartitions.paymentKeys,
          catalogPartitions.content,
          settlementPartitions.settlement,
          bookingPartitions.customerRefKey,
          catalogPartitions.inventory,
          catalogPartitions.unavailable,
        ],
        PutItem: [
          bookingPartitions.customerRefKey,
          settlementPartitions.settlement,
          bookingPartitions.reference,
          bookingPartitions.booking,
          bookingPartitions.rows,
          settlementPartitions.ledger,
          eventPartitions.events,
          catalogPartitions.unavailable,
          eventPartitions.once,
        ],
        UpdateItem: [catalogPartitions.inventory, quotePartitions.quote],
        ConditionCheckItem: [catalogPartitions.inventory],
        Query: [webhookPartitions.subscribers],
        queryIndexes: ['gsi2'],
      },
    },
  },
  listBookings: {
    method: 'GET',
    path: '/v1/bookings',
    handler: 'functions/bookings/list.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Bookings',
    summary: 'Your bookings, most recent first',
    description:
      'Keyset-paged, most recent first. Filter by status (comma-separated), customer_reference (matched against its stored hash) and created_from/created_to (inclusive instants). Traveler names as initials.',
    request: { query: BookingListQuery },
    responses: { 200: { description: 'A page of bookings; traveler names as initials.', schema: BookingPage } },
    // The list rows; a customer_reference filter reads the partner's key, a partner_reference one its reservation and booking.
    dynamo: {
      data: {
        Query: [bookingPartitions.rows],
        GetItem: [bookingPartitions.customerRefKey, bookingPartitions.reference, bookingPartitions.booking],
        BatchGetItem: [bookingPartitions.booking],
      },
    },
  },
  getBooking: {
    method: 'GET',
    path: '/v1/bookings/{booking_number}',
    handler: 'functions/bookings/get.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Bookings',
    summary: 'One booking with full traveler details',
    description:
      'Full detail: travelers, contact, amounts, payment, quote_id, partner_reference, travel_date, status, test_mode and, once cancelled, the cancellation.',
    request: { params: BookingNumberParams },
    responses: { 200: { description: 'The booking.', schema: Booking } },
    dynamo: { data: { GetItem: [bookingPartitions.booking] } },
  },
  getCancellationQuote: {
    method: 'GET',
    path: '/v1/bookings/{booking_number}/cancellation-quote',
    handler: 'functions/bookings/cancellation-quote.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Bookings',
    summary: 'Refund preview before cancelling',
    description:
      "What cancelling now would refund under the rate pack's policy: refundable_amount, fee_amount, refund_percent and the applied rule. It holds until valid_until (the policy's next threshold).",
    request: { params: BookingNumberParams },
    responses: { 200: { description: 'Fees, refundable amount and the policy rule applied, valid until valid_until.', schema: CancellationQuote } },
    dynamo: { data: { GetItem: [bookingPartitions.booking] } },
  },
  cancelBooking: {
    method: 'POST',
    path: '/v1/bookings/{booking_number}/cancel',
    handler: 'functions/bookings/cancel.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Bookings',
    summary: 'Cancel a booking',
    description: 'Releases the seats, records the refund of the policy and emits booking.cancelled; 409 booking.not_cancellable when CANCELLED or COMPLETED.',
    request: { params: BookingNumberParams, body: CancelBookingBody },
    errors: ['booking.not_cancellable', 'booking.slot.contended'],
    responses: { 200: { description: 'The cancelled booking with its cancellation details.', schema: Booking } },
    sendsMail: true,
    publishesEvents: true,
    dynamo: CANCELLATION,
  },
  completeBookingTestHelper: {
    method: 'POST',
    path: '/v1/test-helpers/bookings/{booking_number}/complete',
    handler: 'functions/bookings/test-complete.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Test helpers',
    summary: 'Sandbox: the booking travels now, whatever its date',
    description: 'COMPLETED with booking.completed; 409 booking.not_completable unless CONFIRMED. Sandbox keys only.',
    request: { params: BookingNumberParams, body: EmptyBody },
    errors: ['booking.not_completable', 'booking.slot.contended'],
    responses: { 200: { description: 'The completed booking.', schema: Booking } },
    sandboxOnly: true,
    publishesEvents: true,
    dynamo: {
      data: {
        GetItem: [bookingPartitions.booking, settlementPartitions.settlement],
        UpdateItem: [bookingPartitions.booking, settlementPartitions.ledger],
        PutItem: [bookingPartitions.rows, eventPartitions.events],
      },
    },
  },
  serviceCancelBookingTestHelper: {
    method: 'POST',
    path: '/v1/test-helpers/bookings/{booking_number}/service-cancel',
    handler: 'functions/bookings/test-service-cancel.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Test helpers',
    summary: 'Sandbox: the service cancels the booking, with a full refund',
    description:
      'CANCELLED (cancelled_by SERVICE, full refund) with booking.cancelled, whatever the policy or the date; 409 booking.not_cancellable unless CONFIRMED.',
    request: { params: BookingNumberParams, body: CancelBookingBody.optional() },
    errors: ['booking.not_cancellable', 'booking.slot.contended'],
    responses: { 200: { description: 'The cancelled booking.', schema: Booking } },
    sandboxOnly: true,
    sendsMail: true,
    publishesEvents: true,
    dynamo: CANCELLATION,
    untested: {
      [dynamoLine('data', 'PutItem', settlementPartitions.settlement)]: "the month's first ledger line opens its DRAFT settlement (one conditional Put)",
    },
  },
});
