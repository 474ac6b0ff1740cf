import IORedis from "ioredis";
import type Stripe from "stripe";
import { DEDUP_TTL } from "./ttl";

const connection = new IORedis(process.env.REDIS_URL ?? "redis://localhost:6379");

export async function claimStripeEvent(event: Stripe.Event): Promise<boolean> {
  const key = `dedup:stripe:${event.id}`;
  const ok = await connection.set(key, "1", "EX", DEDUP_TTL, "NX");
  return ok === "OK";
}
