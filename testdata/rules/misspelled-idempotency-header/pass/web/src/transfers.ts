// Browser client of the ledger's transfer API.
import { v4 as uuid } from "uuid";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

export async function createTransfer(body: TransferRequest): Promise<Transfer> {
  const idempotencyKey = uuid();
  const res = await fetch("/api/transfers", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      [IDEMPOTENCY_KEY_HEADER]: idempotencyKey,
    },
    body: JSON.stringify({ ...body, idempotency_key: idempotencyKey }),
  });
  const replayed = res.headers.get("idempotent-replayed") === "true";
  const json = await res.json();
  return { id: json["id"], idempotencyKey: json["idempotency_key"], replayed };
}

export const routes = {
  listKeys: "/admin/idempotency-keys",
  keyMetric: "payments.idempotency_key.hits",
};

export interface TransferRequest {
  amount: number;
  currency: string;
}

export interface Transfer {
  id: string;
  idempotencyKey: string;
  replayed: boolean;
}
