// Grants the included usage credit for a paid invoice (called from the webhook).
import Stripe from "stripe";
import { stripe } from "./stripe";

export async function grantCredits(invoice: Stripe.Invoice, cents: number) {
  return stripe.billing.creditGrants.create(
    { customer: String(invoice.customer), amount: { type: "monetary", monetary: { currency: "usd", value: cents } }, category: "promotional" },
    { idempotencyKey: `credit-grant:${invoice.id}:${Date.now()}` }, // expect: fresh-key-per-retry
  );
}

export async function meterResponse(input: { customerId: string; responseId: string }) {
  await stripe.billing.meterEvents.create({
    event_name: "response_created",
    identifier: `response_created:${input.responseId}:${Date.now()}`, // expect: fresh-key-per-retry
    payload: { stripe_customer_id: input.customerId, value: "1" },
  });
}

export async function subscribe(customer: string, workspaceId: string) {
  let idempotencyKey = `subscribe:${workspaceId}`;
  let sub = await stripe.subscriptions.create({ customer }, { idempotencyKey });
  for (let attempt = 0; attempt < 3; attempt++) {
    const live = await stripe.subscriptions.retrieve(sub.id);
    if (live.status !== "canceled") {
      break;
    }
    idempotencyKey = crypto.randomUUID(); // expect: fresh-key-per-retry
    sub = await stripe.subscriptions.create({ customer }, { idempotencyKey });
  }
  return sub;
}
