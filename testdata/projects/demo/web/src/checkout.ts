// Checkout page: pays an order through our API, retrying on network errors
// with the same idempotency key.

export async function payOrder(orderId: string, amount: number): Promise<{ id: string; replayed: boolean }> {
  const key = `order-${orderId}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetch("/v1/transfers", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ amount, currency: "eur", destination: "merchant" }),
      });
      const body = await res.json();
      return { id: body.id, replayed: res.headers.get("Idempotent-Replayed") === "true" };
    } catch (err) {
      if (attempt === 2) throw err;
    }
  }
  throw new Error("unreachable");
}
