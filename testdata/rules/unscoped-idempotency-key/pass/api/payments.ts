import type { Redis } from "ioredis";

export async function claimPayment(redis: Redis, tenantId: string, idempotencyKey: string) {
  const claimed = await redis.set(`idem:${tenantId}:${idempotencyKey}`, "pending", "NX");
  return claimed === "OK";
}

// A provider's delivery id is unique across its callers.
export async function seenDelivery(redis: Redis, endpointId: string, deliveryId: string) {
  return redis.set(`webhookdedupe:${endpointId}:${deliveryId}`, "1", "NX");
}
