import pRetry from "p-retry";
import Stripe from "stripe";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);

// Retries for a few minutes, with one key for every attempt.
export async function chargeOrder(orderId: string, customer: string, cents: number) {
  const idempotencyKey = `order-${orderId}`;
  return pRetry(
    () =>
      stripe.paymentIntents.create(
        { amount: cents, currency: "usd", customer, confirm: true },
        { idempotencyKey },
      ),
    { retries: 8, minTimeout: 1_000, maxTimeout: 60_000 },
  );
}
