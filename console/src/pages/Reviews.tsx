import { useState } from 'react';
import { call } from '../api';
import { useApiQuery, useCursorPages } from '../hooks';
import { FilterForm, FindForm, QueryView, useFilters } from '../lists';
import type { Review } from '../types';
import { Badge, DateTime, Pager, PageTitle, SelectField } from '../ui';

const TYPES = ['EXPERIENCE', 'TRIP', 'AGENCY'] as const;
const KIND: Record<(typeof TYPES)[number], string> = { EXPERIENCE: 'the experience', TRIP: 'the trip', AGENCY: 'the agency' };

export default function Reviews() {
  const f = useFilters({ minRating: '', type: '', adventure: '', ours: false });
  const { filters, draft } = f;
  const pages = useCursorPages(filters);
  const q = useApiQuery(['reviews', filters, pages.cursor], (env, signal) =>
    call(env, 'listReviews', {
      signal,
      query: {
        limit: 20,
        cursor: pages.cursor,
        min_rating: filters.minRating ? Number(filters.minRating) : undefined,
        reviewable_type: (filters.type || undefined) as (typeof TYPES)[number] | undefined,
        adventure: filters.adventure.trim() || undefined,
        posted_by_you: filters.ours ? 'true' : undefined,
      },
    }),
  );
  return (
    <>
      <PageTitle>Reviews</PageTitle>
      <p>
        Travelers' reviews of the catalog: the consumer site's and those your bank posted, with their moderation state. Lists show visible reviews; "Posted by
        us" lists the reviews your bank posted, those the moderators hid included. A review is also found by its id below.
      </p>
      <FilterForm label="Filter the reviews" onApply={f.apply} onClear={f.clear}>
        <SelectField label="Minimum rating" value={draft.minRating} onChange={(e) => f.set({ minRating: e.target.value })}>
          <option value="">Any</option>
          {[5, 4, 3, 2, 1].map((n) => (
            <option key={n} value={n}>
              {n} or more
            </option>
          ))}
        </SelectField>
        <SelectField label="About" value={draft.type} onChange={(e) => f.set({ type: e.target.value })}>
          <option value="">Anything</option>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t === 'EXPERIENCE' ? 'Experiences' : t === 'TRIP' ? 'Trips' : 'Agencies'}
            </option>
          ))}
        </SelectField>
        <label>
          Adventure (slug)
          <input type="text" pattern="[a-z0-9-]{1,120}" value={draft.adventure} onChange={(e) => f.set({ adventure: e.target.value })} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={draft.ours} onChange={(e) => f.set({ ours: e.target.checked })} /> Posted by us (hidden ones included)
        </label>
      </FilterForm>
      <QueryView query={q} loading="Loading reviews…">
        {(page) => (
          <>
            {page.data.length === 0 ? (
              <p>
                {filters.ours
                  ? filters.minRating || filters.type || filters.adventure.trim()
                    ? 'None of the reviews your bank posted in this environment match these filters.'
                    : 'Your bank has posted no review in this environment (POST /reviews, for a completed booking).'
                  : filters.minRating || filters.type || filters.adventure.trim()
                    ? 'No visible reviews match these filters.'
                    : 'No visible reviews in this environment yet.'}
              </p>
            ) : (
              <ul className="cards">
                {page.data.map((r) => (
                  <li key={r.id}>
                    <ReviewCard review={r} />
                  </li>
                ))}
              </ul>
            )}
            <Pager label="Pages of reviews" page={pages.page} nextCursor={page.meta.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
          </>
        )}
      </QueryView>
      <FindReview />
    </>
  );
}

function ReviewCard({ review: r }: { review: Review }) {
  return (
    <article className="card" aria-label={`Review by ${r.author_name} of ${r.reviewable_name ?? r.reviewable_type.toLowerCase()}`}>
      <p className="rating">
        <span aria-hidden="true">{'★'.repeat(r.rating) + '☆'.repeat(5 - r.rating)}</span>
        <span className="visually-hidden">Rated {r.rating} out of 5</span> <Badge value={r.moderation_status} />
        {r.verified_booking ? <span className="muted"> · verified booking</span> : null}
      </p>
      <p>
        About {KIND[r.reviewable_type]} <strong>{r.reviewable_name ?? r.reviewable_id}</strong>
        {r.reviewable_slug ? <span className="muted"> ({r.reviewable_slug})</span> : null}
      </p>
      {r.title ? <h3>{r.title}</h3> : null}
      <p className="comment">{r.comment}</p>
      <p className="muted">
        {r.author_name} · <DateTime value={r.created_at} />
        {r.moderated_at ? (
          <>
            {' '}
            · moderated <DateTime value={r.moderated_at} />
          </>
        ) : null}
      </p>
      {r.agency_reply ? <p className="reply">Agency's reply: {r.agency_reply}</p> : null}
      <p className="muted small">
        Review id <code>{r.id}</code>
      </p>
    </article>
  );
}

function FindReview() {
  const [id, setId] = useState<string | null>(null);
  const q = useApiQuery(['reviews', 'one', id], (env, signal) => call(env, 'getReview', { path: { id: id! }, signal }), { enabled: !!id });
  return (
    <section aria-labelledby="rv-find">
      <h2 id="rv-find">Find a review by its id</h2>
      <FindForm field="Review id" button="Find" pattern="[0-9a-fA-F-]{36}" onFind={(v) => setId(v || null)} />
      <QueryView query={q} loading="Looking for the review…">
        {(r) => <ReviewCard review={r} />}
      </QueryView>
    </section>
  );
}
