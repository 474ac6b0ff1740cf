import { PrismaClient } from "@prisma/client";

const prisma = new PrismaClient();

export async function claimPayoutRequest(key: string) {
  await prisma.idempotencyKey.create({ data: { key, requestHash: "" } });
}

export async function recordPayoutRequest(key: string, response: unknown) {
  await prisma.idempotencyKey.update({ where: { key }, data: { response: response as object } });
}
