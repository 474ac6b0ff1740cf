// Stripe resends an event for up to 30 days; keep five more for our own outages.
export const DEDUP_TTL = 60 * 60 * 24 * 35;
export const LOCK_TTL_MS = 30_000;
