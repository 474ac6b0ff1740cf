export async function sendTransfer(iban: string, amountCents: number) {
  const res = await fetch("https://bank.example.com/v1/transfers", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ iban, amountCents }),
  });
  return res.json();
}
