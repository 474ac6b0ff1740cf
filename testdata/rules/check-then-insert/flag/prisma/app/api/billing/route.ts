import { prisma } from "@/lib/prisma";
import { findRewardForInvoice } from "@/lib/rewards";
import { verifyBillingEvent } from "@/lib/billing";

// invoice.paid: the partner earns a reward once per invoice. Two deliveries
// of the event that arrive together both find no reward and both pay it.
export async function POST(req: Request) {
  const event = await verifyBillingEvent(req);
  const invoice = event.data.object;
  const partnerId = invoice.metadata.partnerId;

  const existing = await findRewardForInvoice(invoice.id, partnerId);
  if (existing) {
    return Response.json({ duplicate: true });
  }

  const reward = await prisma.reward.create({ // expect: check-then-insert
    data: {
      partnerId,
      invoiceId: invoice.id,
      amount: Math.round(invoice.amount_paid * 0.2),
    },
  });
  return Response.json({ id: reward.id });
}
