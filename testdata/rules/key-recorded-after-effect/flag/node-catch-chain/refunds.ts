import { PrismaClient } from "@prisma/client";
import { psp } from "./psp";

const prisma = new PrismaClient();

// The refund goes out before the key is kept; the `.catch` after it does
// not change what the await waits on.
export async function refundOrder(key: string, requestHash: string, paymentId: string) {
  const seen = await prisma.idempotencyKey.findUnique({ where: { key } });
  if (seen) {
    return seen.response;
  }
  const refund = await psp.refund(paymentId).catch((e: unknown) => ({ failed: String(e) }));
  await prisma.idempotencyKey.create({ data: { key, requestHash, response: refund } }); // expect: key-recorded-after-effect
  return refund;
}
