export async function createOrder(base: string, key: string, order: unknown) {
  const res = await fetch(`${base}/orders`, {
    method: "POST",
    headers: { "Idempotency-Key": key },
    body: JSON.stringify(order),
  });
  return { order: await res.json(), replayed: res.headers.get("Idempotency-Replayed") === "true" };
}
