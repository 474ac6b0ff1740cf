import { redis } from "@/lib/upstash";
import { recordSale } from "@/lib/sales";

// A dedup claim on the invoice: SET NX whose answer skips a replay. Its key
// names no store, yet it keeps one; the path says Stripe.
export async function invoicePaid(invoice: { id: string; amount_paid: number }) {
  const ok = await redis.set(
    `trackSale:invoice:${invoice.id}`,
    { amount: invoice.amount_paid },
    { ex: 60 * 60 * 12, nx: true }, // expect: ttl-below-replay-horizon
  );
  if (!ok) {
    return { response: `invoice ${invoice.id} already processed` };
  }
  await recordSale(invoice.id, invoice.amount_paid);
  return { response: "ok" };
}
