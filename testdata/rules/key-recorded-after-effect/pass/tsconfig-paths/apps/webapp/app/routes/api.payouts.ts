import { sendPayout } from "~/services/bank.server";
import { claimPayoutRequest, recordPayoutRequest } from "~/services/ledger.server";

// Claimed before the transfer is sent: a replay fails on the key's row.
export async function action({ request }: { request: Request }) {
  const key = request.headers.get("x-request-key") ?? crypto.randomUUID();
  const { iban, amountCents } = await request.json();
  await claimPayoutRequest(key);
  const sent = await sendPayout(iban, amountCents);
  await recordPayoutRequest(key, sent);
  return Response.json(sent);
}
