import IORedis from "ioredis";
import type Stripe from "stripe";
import { DEDUP_TTL, LOCK_TTL_MS } from "./ttl";

const connection = new IORedis(process.env.REDIS_URL ?? "redis://localhost:6379");

export async function claimStripeEvent(event: Stripe.Event): Promise<boolean> {
  const key = `dedup:stripe:${event.id}`;
  const ok = await connection.set(key, "1", "EX", DEDUP_TTL, "NX");
  return ok === "OK";
}

// Only one worker applies a given event at a time; the claim above keeps it.
export async function lockStripeEvent(event: Stripe.Event): Promise<boolean> {
  const ok = await connection.set(`lock:dedup:stripe:${event.id}`, "1", "PX", LOCK_TTL_MS, "NX");
  return ok === "OK";
}
