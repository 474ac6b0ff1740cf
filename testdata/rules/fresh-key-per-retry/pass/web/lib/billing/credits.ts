// Grants the included usage credit for a paid invoice (called from the webhook).
import Stripe from "stripe";
import { stripe } from "./stripe";

export async function grantCredits(invoice: Stripe.Invoice, cents: number) {
  return stripe.billing.creditGrants.create(
    { customer: String(invoice.customer), amount: { type: "monetary", monetary: { currency: "usd", value: cents } }, category: "promotional" },
    { idempotencyKey: `credit-grant:${invoice.id}` },
  );
}

export async function meterResponse(input: { customerId: string; responseId: string }) {
  await stripe.billing.meterEvents.create({
    event_name: "response_created",
    identifier: `response_created:${input.responseId}`,
    payload: { stripe_customer_id: input.customerId, value: "1" },
  });
}

// A checkout started by a click: one key per call, which stripe-node
// resends on its own network retries. No rerun of this code is in sight.
export async function startCheckout(customer: string) {
  return stripe.checkout.sessions.create({ customer, mode: "payment" }, { idempotencyKey: crypto.randomUUID() });
}

export async function subscribe(customer: string, workspaceId: string) {
  let idempotencyKey = `subscribe:${workspaceId}`;
  let sub = await stripe.subscriptions.create({ customer }, { idempotencyKey });
  for (let attempt = 0; attempt < 3; attempt++) {
    const live = await stripe.subscriptions.retrieve(sub.id);
    if (live.status !== "canceled") {
      break;
    }
    idempotencyKey = `${idempotencyKey}:${live.id}`;
    sub = await stripe.subscriptions.create({ customer }, { idempotencyKey });
  }
  return sub;
}

// A batch: each item its own key, made from the item.
export async function payAll(items: { id: string; amount: number }[]) {
  for (let i = 0; i < items.length; i++) {
    await stripe.transfers.create({ amount: items[i].amount, currency: "usd", destination: "acct_1" }, { idempotencyKey: `transfer-${items[i].id}` });
  }
}
