import { stripe } from "@/lib/stripe";

export async function payOutInvoice(invoiceId: string) {
  await stripe.transfers.create(
    { amount: 1000, currency: "usd", destination: "acct_123" },
    { idempotencyKey: `payout/${invoiceId}` },
  );
}
