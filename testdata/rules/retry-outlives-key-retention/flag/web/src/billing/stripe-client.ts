// The shared Stripe client. stripe-node keys each POST it retries itself.
import Stripe from "stripe";

export const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "", {
  apiVersion: "2025-05-28.basil",
  maxNetworkRetries: 50000, // expect: retry-outlives-key-retention
});
