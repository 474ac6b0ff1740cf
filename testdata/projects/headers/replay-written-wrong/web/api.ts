export async function pay(body: unknown, key: string): Promise<boolean> {
  const res = await fetch("/api/payments", {
    method: "POST",
    headers: { "Idempotency-Key": key },
    body: JSON.stringify(body),
  });
  return res.headers.get("Idempotent-Replayed") === "true";
}
