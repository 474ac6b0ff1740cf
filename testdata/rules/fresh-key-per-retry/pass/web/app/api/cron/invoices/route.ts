// Retries failed invoice charges; the scheduler calls this route daily.
import { prisma } from "@/lib/prisma";
import { chargeInvoice } from "@/lib/billing/charge";

export async function POST() {
  const invoices = await prisma.invoice.findMany({ where: { status: "failed" } });
  for (const invoice of invoices) {
    await chargeInvoice({
      invoiceId: invoice.id,
      amount: invoice.total,
      idempotencyKey: `${invoice.id}-${invoice.failedAttempts}`,
    });
  }
  return new Response("ok");
}
