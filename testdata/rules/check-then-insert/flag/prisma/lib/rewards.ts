import { prisma } from "@/lib/prisma";

export async function findRewardForInvoice(invoiceId: string, partnerId: string) {
  return prisma.reward.findFirst({
    where: { invoiceId, partnerId },
    select: { id: true },
  });
}
