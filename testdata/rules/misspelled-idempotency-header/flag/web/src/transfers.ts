// Browser client of the ledger's transfer API.
import { v4 as uuid } from "uuid";

export async function createTransfer(body: TransferRequest): Promise<Transfer> {
  const key = uuid();
  const res = await fetch("/api/transfers", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Idempotency_Key": key, // expect: misspelled-idempotency-header
    },
    body: JSON.stringify({ ...body, idempotency_key: key }),
  });
  const replayed = res.headers.get("Idempotent-Replayed") === "true";
  return { ...(await res.json()), replayed };
}

export interface TransferRequest {
  amount: number;
  currency: string;
}

export interface Transfer {
  id: string;
  replayed: boolean;
}
