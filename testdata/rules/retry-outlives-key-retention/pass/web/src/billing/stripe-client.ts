// The shared Stripe client: a few quick retries, all within seconds.
import Stripe from "stripe";

let client: Stripe | null = null;

export function getStripe(): Stripe {
  if (!client) {
    client = new Stripe(process.env.STRIPE_SECRET_KEY ?? "", {
      apiVersion: "2025-05-28.basil",
      maxNetworkRetries: 3,
      timeout: 20_000,
    });
  }
  return client;
}
