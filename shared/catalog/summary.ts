/** What the catalog index holds of an adventure: every listing filters, sorts and shows from it. */
export interface AdventureSummary {
  id: string;
  slug: string;
  title: string;
  summary: string;
  city: string;
  category: string;
  lat: number;
  lng: number;
  duration_minutes: number;
  rating: number;
  review_count: number;
  popularity: number;
  /** Minor units. */
  from_price: number;
  booking_modes: string[];
  image: string;
  active: boolean;
  agency: string;
  /** Per rate pack: ISO weekdays it operates and its booking window in days. */
  sells: { weekdays: number[]; window_days: number }[];
}
