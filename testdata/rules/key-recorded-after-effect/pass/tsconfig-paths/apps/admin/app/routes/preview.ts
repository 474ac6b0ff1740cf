import { sendPayout } from "~/services/bank.server";
import { recordPayoutRequest } from "~/services/ledger.server";

// The admin app's helpers of the same names only preview and log.
export async function action({ request }: { request: Request }) {
  const key = request.headers.get("x-request-key") ?? "preview";
  const { iban, amountCents } = await request.json();
  const preview = await sendPayout(iban, amountCents);
  await recordPayoutRequest(key, preview);
  return Response.json(preview);
}
