import { describe, expect, it } from 'vitest';
import { api, newPartner } from './helpers';
import { entriesOf, markersIn, sendMarkerRequests } from './marker-requests';

/** A marker as entries show a withheld value (shared/request-logs/marker.ts), spelled here so that this test also runs against code without one. */
const MARKER = /\[(?:personal|secret|unknown) \d+ bytes sha256:[0-9a-f]{8}\]/;

describe('request log: it keeps public values only (issue 40)', () => {
  it("keeps none of the 18 marker requests' values in any entry of either environment, while their 401s keep them whole", async () => {
    const p = await newPartner();
    const { markers, requests } = await sendMarkerRequests(p);
    const entries = await entriesOf(requests);
    const lists = await Promise.all([p.test_key, p.live_key].map((key) => api('GET', '/request-logs?limit=100', { key })));
    for (const l of lists) expect(l.status, l.text).toBe(200);
    const text = JSON.stringify([entries, lists.map((l) => l.body)]);
    expect(markersIn(text, markers), 'markers kept by the request log').toEqual([]);

    // The caller's own 401 keeps what the service signed, raw query values and Idempotency-Key included.
    const signed = requests.filter((r) => r.what.includes('signed') || r.what.startsWith('signature'));
    expect(signed).toHaveLength(3);
    for (const r of signed) expect(markersIn(r.answer, markers).length, r.what).toBeGreaterThanOrEqual(1);

    // What the entries show instead: the route's own segments and markers, and diagnostics that still read line by line.
    const of = (what: string) => entries[requests.findIndex((r) => r.what === what)]!;
    expect(of('a full API key in the path').path).toMatch(new RegExp(`^/v1/reviews/${MARKER.source}$`));
    const diagnostics = of('signature diagnostics with raw query values (version 2)').signature!;
    expect(diagnostics.path).toMatch(new RegExp(`^/v1/bookings\\?${MARKER.source}=${MARKER.source}&`));
    expect(String(diagnostics.string_to_sign).split('\n')).toEqual([
      'v2',
      diagnostics.timestamp,
      'POST',
      diagnostics.path,
      diagnostics.idempotency_key,
      diagnostics.body_sha256,
    ]);
    const review = JSON.parse(of("a review's title, comment and author_name").request_body!.content!);
    expect(review).toMatchObject({ booking_number: 'PTB-AAAA-BBBB', reviewable_type: 'EXPERIENCE', rating: 5 });
    for (const field of ['title', 'comment', 'author_name']) expect(review[field], field).toMatch(/^\[personal \d+ bytes sha256:[0-9a-f]{8}\]$/);
  });
});
