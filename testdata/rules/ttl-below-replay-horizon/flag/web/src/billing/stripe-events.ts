import IORedis from "ioredis";
import type Stripe from "stripe";
import { DEDUP_TTL } from "./ttl";
import { DAY_SECONDS } from "../lib/time";

const connection = new IORedis(process.env.REDIS_URL ?? "redis://localhost:6379");

export async function claimStripeEvent(event: Stripe.Event): Promise<boolean> {
  const key = `dedup:stripe:${event.id}`;
  const ok = await connection.set(key, "1", "EX", DEDUP_TTL, "NX");
  return ok === "OK";
}

// Remembered for a week after the worker applied it.
export async function markProcessed(eventId: string): Promise<void> {
  await connection.set(`processed:stripe:${eventId}`, "1", "EX", DAY_SECONDS * 7); // expect: ttl-below-replay-horizon
}
