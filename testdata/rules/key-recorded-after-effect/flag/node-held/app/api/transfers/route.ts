import { sendTransfer } from "@/lib/bank";
import { rememberRequest } from "@/lib/ledger";

// Nothing here names a store or a provider: the order is only seen through
// the two helpers it calls.
export async function POST(req: Request) {
  const key = req.headers.get("x-request-key") ?? crypto.randomUUID();
  const { iban, amountCents } = await req.json();
  const sent = await sendTransfer(iban, amountCents);
  await rememberRequest(key, sent);
  return Response.json(sent);
}
