import { createClient } from "redis";
import type Stripe from "stripe";

const redis = createClient({ url: process.env.REDIS_URL });

// Remember each delivered event for 40 days so a resend is acknowledged once.
export async function firstDelivery(event: Stripe.Event): Promise<boolean> {
  const claimed = await redis.set(`webhookdedupe:${event.id}`, "1", { NX: true, EX: 40 * 86400 });
  return claimed === "OK";
}
