import type { Redis } from "ioredis";

export async function claimPayment(redis: Redis, tenantId: string, idempotencyKey: string) {
  const claimed = await redis.set(`idempotency:${idempotencyKey}`, "pending", "NX"); // expect: unscoped-idempotency-key
  if (claimed !== "OK") {
    return { replay: true, tenantId };
  }
  return { replay: false, tenantId };
}
