import type { NextApiRequest, NextApiResponse } from "next";
import Stripe from "stripe";
import { kv } from "@vercel/kv";
import { fulfilOrder } from "../../lib/orders";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");

// One atomic claim: the delivery that does not win it answers at once.
export default async function handler(req: NextApiRequest, res: NextApiResponse) {
  const event = stripe.webhooks.constructEvent(
    req.body,
    req.headers["stripe-signature"] as string,
    process.env.STRIPE_WEBHOOK_SECRET ?? "",
  );
  const dedupKey = `dedup:stripe:${event.id}`;
  const claimed = await kv.set(dedupKey, "1", { nx: true, ex: 60 * 60 * 24 * 35 });
  if (!claimed) {
    return res.status(200).json({ received: true });
  }
  await fulfilOrder(event);
  return res.status(200).json({ received: true });
}
