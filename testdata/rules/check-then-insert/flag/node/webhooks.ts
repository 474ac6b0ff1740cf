import type { NextApiRequest, NextApiResponse } from "next";
import Stripe from "stripe";
import { kv } from "@vercel/kv";
import { fulfilOrder } from "../../lib/orders";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");

// Two deliveries of one event that arrive together both read nothing and
// both fulfil the order.
export default async function handler(req: NextApiRequest, res: NextApiResponse) {
  const event = stripe.webhooks.constructEvent(
    req.body,
    req.headers["stripe-signature"] as string,
    process.env.STRIPE_WEBHOOK_SECRET ?? "",
  );
  const dedupKey = `dedup:stripe:${event.id}`;
  if (await kv.get(dedupKey)) {
    return res.status(200).json({ received: true });
  }
  await kv.set(dedupKey, "1", { ex: 60 * 60 * 24 * 35 }); // expect: check-then-insert
  await fulfilOrder(event);
  return res.status(200).json({ received: true });
}
