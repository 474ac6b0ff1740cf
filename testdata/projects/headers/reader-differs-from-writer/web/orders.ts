export async function createOrder(key: string, order: unknown): Promise<boolean> {
  const res = await fetch("/orders", {
    method: "POST",
    headers: { "Idempotency-Key": key },
    body: JSON.stringify(order),
  });
  return res.headers.get("Idempotent-Replay") === "true";
}
