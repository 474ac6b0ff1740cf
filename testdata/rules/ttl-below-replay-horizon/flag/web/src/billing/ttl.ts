// How long the billing worker remembers a Stripe delivery it has applied.
export const DEDUP_TTL = 86400; // expect: ttl-below-replay-horizon
