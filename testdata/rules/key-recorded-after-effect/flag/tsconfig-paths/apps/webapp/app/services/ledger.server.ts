import { PrismaClient } from "@prisma/client";

const prisma = new PrismaClient();

export async function recordPayoutRequest(key: string, response: unknown) {
  await prisma.idempotencyKey.create({ data: { key, response: response as object } }); // expect: key-recorded-after-effect
}
