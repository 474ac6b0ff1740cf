import { prisma } from "@/lib/prisma";

export async function findCredit(invoiceId: string, customerId: string) {
  return prisma.credit.findUnique({
    where: { invoiceId_customerId: { invoiceId, customerId } },
  });
}
