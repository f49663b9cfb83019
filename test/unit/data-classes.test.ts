import { describe, expect, it } from 'vitest';
import { classifiedLeaves, keptPublic } from '../../shared/http/data-class';
import type { RouteDef } from '../../shared/http/route-def';
import { buildOpenApi } from '../../shared/openapi';
import { ROUTE_LIST } from '../../shared/routes';

/** Every schema of a route: its request's path, query and body, and each declared response. */
function schemasOf(r: RouteDef) {
  const request = (['params', 'query', 'body'] as const).flatMap((loc) => (r.request?.[loc] ? [{ where: `${r.id} ${loc}`, schema: r.request[loc] }] : []));
  const responses = Object.entries(r.responses).flatMap(([status, res]) => (res.schema ? [{ where: `${r.id} ${status}`, schema: res.schema }] : []));
  return { request, responses };
}

// Free text a caller may put anywhere: a key (built here so that no key-like literal stands in the repository), an e-mail, a name, a phone number.
const FREE_TEXT = [
  ['sk', 'test', 'abcdefghijkl', '0123456789abcdef'.repeat(2)].join('_'),
  'amina.el-idrissi@example.com',
  'Amina El Idrissi',
  '+212 600 000 000',
];

describe('data classes of the route table', () => {
  it('classes every field of every request and response schema (public, personal or secret), and the OpenAPI document does not show them', () => {
    const unclassified = ROUTE_LIST.flatMap((r) => {
      const { request, responses } = schemasOf(r);
      return [...request, ...responses].flatMap(({ where, schema }) =>
        classifiedLeaves(schema).flatMap((l) => (l.dataClass ? [] : [`${where}: ${l.path || '(root)'}`])),
      );
    });
    expect(unclassified).toEqual([]);
    const document = JSON.stringify(buildOpenApi());
    expect(document).not.toContain('dataClass');
    expect(document).not.toContain('publicForm');
  });

  it('declares public the ids, codes and dates partners send, and only request fields whose form refuses free text: a key, an e-mail, a name, a phone number', () => {
    const leaves = ROUTE_LIST.flatMap((r) => schemasOf(r).request.flatMap(({ where, schema }) => classifiedLeaves(schema).map((l) => ({ ...l, where }))));
    const classOf = (where: string, path: string) => leaves.find((l) => l.where === where && l.path === path)?.dataClass;
    expect({
      quote: classOf('createBooking body', 'quote_id'),
      rate_pack: classOf('createQuote body', 'rate_pack_id'),
      age: classOf('createQuote body', 'travelers[].age'),
      status: classOf('listBookings query', 'status'),
      booking_number: classOf('getBooking params', 'booking_number'),
      first_name: classOf('createBooking body', 'contact.first_name'),
      birth_date: classOf('createQuote body', 'travelers[].birth_date'),
      partner_reference: classOf('createBooking body', 'partner_reference'),
      comment: classOf('createReview body', 'comment'),
      payment_confirmation: classOf('createBooking body', 'payment_confirmation'),
      url: classOf('createWebhook body', 'url'),
    }).toEqual({
      quote: 'public',
      rate_pack: 'public',
      age: 'public',
      status: 'public',
      booking_number: 'public',
      first_name: 'personal',
      birth_date: 'personal',
      partner_reference: 'personal',
      comment: 'personal',
      payment_confirmation: 'secret',
      url: 'secret',
    });
    const open = leaves
      .filter((l) => l.dataClass === 'public')
      .flatMap((l) => FREE_TEXT.filter((text) => keptPublic(l.schema, text, 'public')).map((text) => `${l.where}: ${l.path} keeps ${JSON.stringify(text)}`));
    expect(open).toEqual([]);
  });
});
