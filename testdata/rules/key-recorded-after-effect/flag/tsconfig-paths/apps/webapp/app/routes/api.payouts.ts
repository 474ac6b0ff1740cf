import { sendPayout } from "~/services/bank.server";
import { recordPayoutRequest } from "~/services/ledger.server";

// The two helpers are named alike in the admin app: only the webapp's
// tsconfig says which ones this route calls.
export async function action({ request }: { request: Request }) {
  const key = request.headers.get("x-request-key") ?? crypto.randomUUID();
  const { iban, amountCents } = await request.json();
  const sent = await sendPayout(iban, amountCents);
  await recordPayoutRequest(key, sent);
  return Response.json(sent);
}
