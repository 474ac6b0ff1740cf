import { prisma } from "@/lib/prisma";
import { findCredit } from "@/lib/credits";
import { verifyBillingEvent } from "@/lib/billing";

// The unique pair refuses the second of two concurrent deliveries, and its
// violation is taken for a replay.
export async function POST(req: Request) {
  const event = await verifyBillingEvent(req);
  const invoice = event.data.object;
  const customerId = invoice.customer;

  if (await findCredit(invoice.id, customerId)) {
    return Response.json({ duplicate: true });
  }
  try {
    await prisma.credit.create({
      data: { customerId, invoiceId: invoice.id, amount: invoice.amount_paid },
    });
  } catch (error) {
    if (error.code === "P2002") {
      return Response.json({ duplicate: true });
    }
    throw error;
  }

  const bonus = await prisma.bonus.findFirst({
    where: { invoiceId: invoice.id, status: "pending" },
  });
  if (!bonus) {
    await prisma.bonus.create({
      data: { partnerId: invoice.metadata.partnerId, invoiceId: invoice.id, amount: 500 },
    });
  }
  return Response.json({ ok: true });
}
