import { redis } from "./upstash";
import { recordSale } from "./sales";

// The claim lost its NX: SET always answers OK, so `!ok` never skips a
// redelivered order.
export async function onOrderPaid(orderId: string, amount: number) {
  const ok = await redis.set(`sale:order:${orderId}`, amount, { ex: 60 * 60 * 24 * 7 }); // expect: check-then-insert
  if (!ok) {
    return { skipped: true };
  }
  await recordSale(orderId, amount);
  return { skipped: false };
}

// The answer is compared with OK and returned as "won".
export async function claimMessage(messageId: string): Promise<boolean> {
  const result = await redis.set(`message:${messageId}`, "1", { ex: 300 }); // expect: check-then-insert
  return result === "OK";
}
