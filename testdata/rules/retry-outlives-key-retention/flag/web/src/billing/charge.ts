import pRetry from "p-retry";
import Stripe from "stripe";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);

// Retries for most of a day when Stripe is down, with one key for every attempt.
export async function chargeOrder(orderId: string, customer: string, cents: number) {
  const idempotencyKey = `order-${orderId}`;
  return pRetry(
    () =>
      stripe.paymentIntents.create(
        { amount: cents, currency: "usd", customer, confirm: true },
        { idempotencyKey },
      ),
    { retries: 12, minTimeout: 60_000, maxTimeout: 6 * 60 * 60 * 1000 }, // expect: retry-outlives-key-retention
  );
}
