import { prisma } from "./db";

// Re-run a past delivery: look the original up by its id and log a new
// delivery with a fresh key, so the run engine runs it again.
export async function replayDelivery(id: string, createdAt: Date) {
  const original = await prisma.webhookDelivery.findFirst({
    where: { id, createdAt },
  });
  if (!original) return null;
  return prisma.webhookDelivery.create({
    data: {
      endpointId: original.endpointId,
      idempotencyKey: `replay:${crypto.randomUUID()}`,
    },
  });
}
