// QStash delivers here once an invoice is paid; a failure is redelivered.
import { verifySignatureAppRouter } from "@upstash/qstash/nextjs";
import { payOutInvoice } from "@/lib/payouts/pay";

export const POST = verifySignatureAppRouter(async (req: Request) => {
  const { invoiceId } = await req.json();
  await payOutInvoice(invoiceId);
  return new Response("ok");
});
